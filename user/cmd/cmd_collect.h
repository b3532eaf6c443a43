/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* heaptap collect: its options (cmd_collect.c). */
#ifndef HEAPTAP_CMD_COLLECT_H
#define HEAPTAP_CMD_COLLECT_H

#include "cli_cluster.h"

struct collect_options {
	const char *listen;		 /* --listen */
	const char *db_path;		 /* --db */
	const char *metrics_listen;	 /* --metrics */
	struct cluster_credentials cred; /* --key, --munge, --munge-socket */
	double client_timeout;		 /* seconds for a handshake, a frame, silence */
	double lost_after;		 /* seconds before an agent gone is lost */
	double commit_every;		 /* seconds a round of batches lasts */
};
extern const struct cli_command collect_command;

#endif
