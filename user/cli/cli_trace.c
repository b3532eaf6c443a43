// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The options of the subcommands that trace: what they trace, and how (cli_trace.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_trace.h"
#include "custom_allocs.h"

void cli_trace_defaults(struct trace_options *t)
{
	t->rule = ATTRIBUTE_ENTRY;
	t->interval = 1.0;
	t->table_budget = (struct budget_limits){ TABLE_BUDGET_FILE, TABLE_BUDGET_TOTAL };
	t->symbol_budget = (struct budget_limits){ SYMBOL_BUDGET_FILE, SYMBOL_BUDGET_TOTAL };
	t->tree_budget = TREE_BUDGET_ENDED;
}

static int parse_budget(const struct cli_state *c, const char *opt, const char *arg,
			uint64_t max, struct budget_limits *out)
{
	if (budget_limits_parse(arg, max, out))
		return cli_usage_error(c->sub, "%s wants SIZE[,TOTAL] sizes above 0 and at most "
				       "%lluM, such as 16M,64M, not '%s'", opt,
				       (unsigned long long)(max >> 20), arg);
	return 0;
}

/* --allocator NAME|FILE: read now, so that a bad spec stops heaptap before it traces. */
static int parse_allocator(const struct cli_state *c, struct trace_options *t,
			   const char *arg)
{
	struct alloc_spec *more;
	char err[512];

	if (t->nr_allocators >= CUSTOM_ALLOCS_MAX)
		return cli_usage_error(c->sub, "at most %d --allocator options", CUSTOM_ALLOCS_MAX);
	more = realloc(t->allocators, (t->nr_allocators + 1) * sizeof(*more));
	if (!more)
		return ENOMEM;
	t->allocators = more;
	if (alloc_spec__load(arg, &t->allocators[t->nr_allocators], err, sizeof(err))) {
		fprintf(stderr, "heaptap: %s\n", err);
		return EINVAL;
	}
	for (size_t i = 0; i < t->nr_allocators; i++) {
		if (!strcmp(t->allocators[i].name, t->allocators[t->nr_allocators].name))
			return cli_usage_error(c->sub, "two --allocator options named %s",
					       t->allocators[i].name);
	}
	t->nr_allocators++;
	return 0;
}

error_t cli_parse_trace(struct cli_state *c, struct trace_options *t, int key, char *arg)
{
	char *end;

	switch (key) {
	case CLI_OPT_ATTRIBUTION:
		if (attribution_rule_parse(arg, &t->rule))
			return cli_usage_error(c->sub, "attribution must be entry or caller, "
					       "not '%s'", arg);
		return 0;
	case CLI_OPT_PID:
		return cli_add_pids(c, arg, &t->pids, &t->nr_pids);
	case CLI_OPT_INTERVAL:
		return cli_parse_seconds(c, "-i", arg, 0.05, &t->interval);
	case CLI_OPT_FOLLOW:
		t->follow = true;
		return 0;
	case CLI_OPT_MPI:
		t->follow = t->mpi_only = true;
		return 0;
	case CLI_OPT_UNWIND:
		if (strcmp(arg, "tables") && strcmp(arg, "fp"))
			return cli_usage_error(c->sub, "--unwind must be tables or fp, not '%s'",
					       arg);
		t->frame_pointers = !strcmp(arg, "fp");
		return 0;
	case CLI_OPT_TABLE_BUDGET:
		return parse_budget(c, "--table-budget", arg, TABLE_BUDGET_MAX, &t->table_budget);
	case CLI_OPT_SYMBOL_BUDGET:
		return parse_budget(c, "--symbol-budget", arg, SYMBOL_BUDGET_MAX,
				    &t->symbol_budget);
	case CLI_OPT_TREE_BUDGET:
		if (budget_size_parse(arg, strlen(arg), TREE_BUDGET_MAX, &t->tree_budget) ||
		    !t->tree_budget)
			return cli_usage_error(c->sub, "--tree-budget wants a size above 0 and at "
					       "most %lluM, such as 16M, not '%s'",
					       (unsigned long long)(TREE_BUDGET_MAX >> 20), arg);
		return 0;
	case CLI_OPT_LIVE_BLOCKS:
		errno = 0;
		t->live_blocks = strtoull(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || !t->live_blocks ||
		    t->live_blocks > (1ull << 32))
			return cli_usage_error(c->sub, "--live-blocks wants a number of blocks (1 "
					       "to 4294967296), not '%s'", arg);
		return 0;
	case CLI_OPT_CONSUMERS:
		errno = 0;
		t->consumers = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || !t->consumers ||
		    t->consumers > CLI_MAX_CONSUMERS)
			return cli_usage_error(c->sub, "--consumers wants a number of threads (1 "
					       "to %d), not '%s'", CLI_MAX_CONSUMERS, arg);
		return 0;
	case CLI_OPT_ALLOCATOR:
		return parse_allocator(c, t, arg);
	case CLI_OPT_SAMPLE_BYTES:
		if (budget_size_parse(arg, strlen(arg), 1ull << 40, &t->sample_bytes))
			return cli_usage_error(c->sub, "--sample-bytes wants a size such as 512K or "
					       "2M (0: every call), not '%s'", arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

void cli_trace_free(struct trace_options *t)
{
	free(t->pids);
	free(t->allocators);
	*t = (struct trace_options){};
}
