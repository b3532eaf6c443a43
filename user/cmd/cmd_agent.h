/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* heaptap agent: its options (cmd_agent.c). */
#ifndef HEAPTAP_CMD_AGENT_H
#define HEAPTAP_CMD_AGENT_H

#include "cli_cluster.h"
#include "cli_trace.h"

struct agent_options {
	struct trace_options trace;	 /* -p, --mpi, --follow COMMAND, -i, and how */
	const char *collector;		 /* --collector HOST:PORT */
	struct cluster_credentials cred; /* --key, --munge, --munge-socket */
	const char *metrics_listen;	 /* --metrics */
	uint64_t buffer_limit;		 /* --buffer: bytes of unacknowledged batches */
};
extern const struct cli_command agent_command;

#endif
