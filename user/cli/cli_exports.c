// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The options of the heap profile exports (--pprof, --folded) of run, attach and report. */
#include <errno.h>
#include <stdlib.h>
#include "cli_table.h"
#include "store_read.h"

error_t cli_parse_export_option(struct cli_state *c, int key, char *arg)
{
	struct options *o = c->opts;
	char *end;
	long rank;

	switch (key) {
	case OPT_PPROF:
		o->pprof_path = arg;
		return 0;
	case OPT_FOLDED:
		o->folded_path = arg;
		return 0;
	case OPT_FOLDED_WEIGHT:
		if (folded_weight_parse(arg, &o->folded_weight))
			return cli_usage_error(c->sub, "--folded-weight must be outstanding, peak, "
					       "allocated or calls, not '%s'", arg);
		o->folded_weight_set = true;
		return 0;
	case OPT_RANK:
		errno = 0;
		rank = strtol(arg, &end, 10);
		if (errno || end == arg || *end || rank < 0 || rank > 1 << 24)
			return cli_usage_error(c->sub, "--rank wants an MPI rank (0 or more), not "
					       "'%s'", arg);
		o->rank = (int)rank;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int cli_check_exports(const struct cli_subcommand *sub, struct options *o)
{
	if (o->folded_weight_set && !o->folded_path)
		return cli_usage_error(sub, "%s", "--folded-weight weighs the stacks of --folded "
					     "FILE: add it");
	/* From a database, --rank picks the processes reported (cmd_report_db.c). */
	/* report --rank R: that rank's full report (cmd_report_job.c). */
	if (o->rank >= 0 && !o->pprof_path && !o->folded_path && o->cmd != CMD_REPORT)
		return cli_usage_error(sub, "%s", "--rank selects the rank --pprof and --folded "
					     "export: add one of them");
	return 0;
}
