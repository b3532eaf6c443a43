/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* heaptap store-migrate: its options (cmd_store_migrate.c). */
#ifndef HEAPTAP_CMD_STORE_MIGRATE_H
#define HEAPTAP_CMD_STORE_MIGRATE_H

#include "cli.h"

struct store_migrate_options {
	const char **inputs; /* FROM TO */
	size_t nr_inputs;
};
extern const struct cli_command store_migrate_command;

#endif
