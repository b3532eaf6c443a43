/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What store.c asks of the store's other parts: each backend's schema, the batches' state. */
#ifndef HEAPTAP_STORE_INTERNAL_H
#define HEAPTAP_STORE_INTERNAL_H

#include "store_sql.h"

/*
 * Each backend's own SQL: the schema created or brought up to date (or, read_only, only
 * checked: heaptap's, of a schema this heaptap reads). 0, or -EIO after one line.
 */
int store_sqlite__setup(struct db *db, const char *path, bool read_only);
int store_pg__setup(struct db *db, bool read_only);
/* Forget the pending groups and statuses (the transaction is rolled back). */
void store__drop_pending(struct store *st);

#endif
