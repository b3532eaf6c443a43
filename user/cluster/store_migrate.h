/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* heaptap store-migrate: the runs of one store copied into another (SQLite, PostgreSQL). */
#ifndef HEAPTAP_STORE_MIGRATE_H
#define HEAPTAP_STORE_MIGRATE_H

#include <stdio.h>

/*
 * Every run of from that to has not (by its key: its job id, or its agent) copied into
 * to, in one transaction; a line per run on out. 0, or -errno after one logged line.
 */
int store__migrate(const char *from, const char *to, FILE *out);

#endif
