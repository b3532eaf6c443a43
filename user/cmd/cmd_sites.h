/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* heaptap sites: its options (cmd_sites.c). */
#ifndef HEAPTAP_CMD_SITES_H
#define HEAPTAP_CMD_SITES_H

#include "cli.h"

struct sites_options {
	pid_t *pids; /* -p */
	size_t nr_pids;
	const char *file; /* FILE */
};
extern const struct cli_command sites_command;

#endif
