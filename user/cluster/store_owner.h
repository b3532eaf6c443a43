/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Who holds each process's memory: written into the database, and read back. */
#ifndef HEAPTAP_STORE_OWNER_H
#define HEAPTAP_STORE_OWNER_H

#include <stdbool.h>
#include <stdint.h>
#include "store.h"
#include "stored_owner.h"

/* A process's Owner message replaces what was stored of it. 0 or -EIO. */
int store_owner__put(struct store *st, int64_t process, const Heaptap__Owner *m);
/*
 * What a process's newest Owner said into *out (NULL: none stored), with its sites unless
 * totals_only. 0, -ENOMEM or -EIO.
 */
int store_owner__load(struct store *st, int64_t process, bool totals_only,
		      struct stored_owner **out);

#endif
