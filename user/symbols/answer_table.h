/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Immutable blobs by a key of two words (an owner's address, a number of its), read by
 * several threads at once while others add: the symbol cache's answers, shared by every
 * consumer of events. The table is split into stripes by key, each under its own
 * read-write lock, so that readers do not wait on each other and a writer stops one
 * stripe. Nothing is removed before answer_table__free.
 */
#ifndef HEAPTAP_ANSWER_TABLE_H
#define HEAPTAP_ANSWER_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct answer_table;

struct answer_table *answer_table__new(void);
void answer_table__free(struct answer_table *t);
/* The blob kept under (owner, key), or NULL. Any thread. */
const void *answer_table__find(struct answer_table *t, const void *owner, uint64_t key);
/*
 * Keep a copy of size bytes of blob under (owner, key): the copy kept, or the blob kept
 * there first when another thread was first (then *first is set, and nothing was added).
 * NULL when out of memory. Any thread.
 */
const void *answer_table__add(struct answer_table *t, const void *owner, uint64_t key,
			      const void *blob, size_t size, int *first);
/* What one entry costs beside its blob: its header (the table's buckets not included). */
size_t answer_table__entry_bytes(void);

#endif
