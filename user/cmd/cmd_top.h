/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* heaptap top: its options (cmd_top.c), and top --collector (cmd_top_collector.c). */
#ifndef HEAPTAP_CMD_TOP_H
#define HEAPTAP_CMD_TOP_H

#include "cli_cluster.h"
#include "cli_outputs.h"
#include "cli_trace.h"

struct top_options {
	struct trace_options trace; /* -p, --mpi, --follow COMMAND, -i, and how */
	struct output_options out;  /* --pprof, --folded, --folded-weight, --full */
	bool batch;		    /* -b: snapshots on standard output */
	bool json_lines;	    /* --json: each snapshot one JSON report on one line */
	long count;		    /* -n: refreshes before quitting; 0 = until done */
	const char *collector;	    /* --collector HOST:PORT */
	long run_id;		    /* --run; 0: the newest */
	struct cluster_credentials cred; /* --key, --munge, --munge-socket */
};
extern const struct cli_command top_command;

/* top --collector */
int cmd_top_collector(const struct top_options *o);

#endif
