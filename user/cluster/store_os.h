/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Each process's OS view and --allocator accounts in the database (schema 4). */
#ifndef HEAPTAP_STORE_OS_H
#define HEAPTAP_STORE_OS_H

#include <stdint.h>
#include "heaptap.pb-c.h"
#include "run_view.h"
#include "store.h"

/* A process's newest Mappings replaces what was stored of its OS view. 0 or -EIO. */
int store_os__put_mappings(struct store *st, int64_t process, const Heaptap__Mappings *m);
/* Its newest AllocatorApis replaces what was stored of its accounts. 0 or -EIO. */
int store_os__put_allocators(struct store *st, int64_t process, const Heaptap__AllocatorApis *m);
/*
 * The stored OS view and accounts of p (nothing from a file before schema 4) into p->t's
 * mappings and custom, for the report writers; run_view frees them. 0, -EIO or -ENOMEM.
 */
int store_os__load(struct store *st, struct run_process *p);

#endif
