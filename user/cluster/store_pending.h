/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The groups a round of batches changed, each with its newest figures only: a group sent
 * every second is written to the database once per commit, not once per batch. Agents send
 * absolute balances, so the newest figures are the whole truth about a group.
 */
#ifndef HEAPTAP_STORE_PENDING_H
#define HEAPTAP_STORE_PENDING_H

#include <stddef.h>
#include <stdint.h>
#include "arena.h"
#include "heaptap.pb-c.h"
#include "heaptap_types.h"

struct pending_group {
	int64_t process, a, b; /* the groups table's key, with kind */
	int32_t kind;
	const char *name;      /* a thread's name, or NULL */
	int64_t current, min, max;
	uint64_t requested;
	uint64_t calls[HT_NR_FUNCS];
};

struct pending_groups {
	struct pending_group *groups; /* in the order first changed */
	size_t nr, cap;
	uint64_t *slots;	      /* open addressing: a hash tag << 32 | index + 1, 0 = free */
	size_t nr_slots;	      /* a power of two, at least twice nr */
	struct arena names;
	const struct pending_group **order; /* pending__in_key_order's, kept for the next round */
	size_t order_cap;
};

/* One group of a process's message. */
struct pending_put {
	int kind;
	int64_t a, b;
	const char *name; /* a thread's, or NULL */
	const Heaptap__Balance *bal;
};

/* Record a process's groups' newest figures. 0 or -ENOMEM (some may be recorded). */
int pending__put(struct pending_groups *pg, int64_t process, const struct pending_put *puts,
		 size_t n);
/*
 * The groups in the database's key order (process, kind, a, b), valid until the next put or
 * clear; NULL when out of memory. A statement of many rows then walks the index and the
 * table's pages in order: a third of the server's time per row is in cache misses when the
 * rows come in the order they first changed.
 */
const struct pending_group **pending__in_key_order(struct pending_groups *pg);
/* The memory held: the collector commits early past its bound. */
size_t pending__bytes(const struct pending_groups *pg);
/* Forget every group (written, or rolled back); the memory stays for the next round. */
void pending__clear(struct pending_groups *pg);
void pending__free(struct pending_groups *pg);

#endif
