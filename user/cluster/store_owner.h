/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Who holds each process's memory, read back from the database. */
#ifndef HEAPTAP_STORE_OWNER_H
#define HEAPTAP_STORE_OWNER_H

#include <stdint.h>
#include "store.h"
#include "stored_owner.h"

/* The stored sites of a process into *out (NULL: none stored). 0, -ENOMEM or -EIO. */
int store_owner__load(struct store *st, int64_t process, struct stored_owner **out);

#endif
