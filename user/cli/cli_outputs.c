// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The report files and what shapes them (cli_outputs.h). */
#include <errno.h>
#include <stdlib.h>
#include "cli_outputs.h"

void cli_outputs_defaults(struct output_options *o)
{
	o->site_depth = 6;
}

error_t cli_parse_outputs(struct cli_state *c, struct output_options *o, int key, char *arg)
{
	char *end;

	switch (key) {
	case CLI_OPT_OUTPUT:
		o->text_path = arg;
		return 0;
	case CLI_OPT_JSON:
		o->json_path = arg;
		return 0;
	case CLI_OPT_STACKS:
		o->stacks_path = arg;
		return 0;
	case CLI_OPT_HTML:
		o->html_path = arg;
		return 0;
	case CLI_OPT_PPROF:
		o->pprof_path = arg;
		return 0;
	case CLI_OPT_FOLDED:
		o->folded_path = arg;
		return 0;
	case CLI_OPT_FOLDED_WEIGHT:
		if (folded_weight_parse(arg, &o->folded_weight))
			return cli_usage_error(c->sub, "--folded-weight must be outstanding, peak, "
					       "allocated or calls, not '%s'", arg);
		o->folded_weight_set = true;
		return 0;
	case CLI_OPT_TREE:
		o->tree = true;
		return 0;
	case CLI_OPT_DEPTH:
		errno = 0;
		o->depth = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || o->depth == 0 ||
		    o->depth > 1000)
			return cli_usage_error(c->sub, "--depth wants a number of levels (1 to "
					       "1000), not '%s'", arg);
		return 0;
	case CLI_OPT_UNDER:
		if (!arg[0])
			return cli_usage_error(c->sub, "%s", "--under wants a function's name");
		o->under = arg;
		return 0;
	case CLI_OPT_SITE_DEPTH:
		errno = 0;
		o->site_depth = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || o->site_depth == 0 ||
		    o->site_depth > 1000)
			return cli_usage_error(c->sub, "--site-depth wants a number of frames (1 "
					       "to 1000), not '%s'", arg);
		return 0;
	case CLI_OPT_DMATP:
		o->dmatp = true;
		return 0;
	case CLI_OPT_BYTES:
		o->bytes = true;
		return 0;
	case CLI_OPT_MAPPINGS:
		o->mappings = true;
		return 0;
	case CLI_OPT_FULL:
		o->full = true;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int cli_check_tree(const struct cli_command *sub, const struct output_options *o)
{
	if ((o->depth || o->under) && !o->tree)
		return cli_usage_error(sub, "%s", "--depth and --under shape the call tree: add "
					     "--tree");
	return 0;
}

int cli_check_exports(const struct cli_command *sub, const struct output_options *o)
{
	if (o->folded_weight_set && !o->folded_path)
		return cli_usage_error(sub, "%s", "--folded-weight weighs the stacks of --folded "
					     "FILE: add it");
	return 0;
}

error_t cli_check_outputs(const struct cli_command *sub, const struct output_options *o)
{
	return cli_check_tree(sub, o) || cli_check_exports(sub, o) ? EINVAL : 0;
}
