// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "answer_table.h"

struct kept_answer {
	struct {
		const void *owner;
		uint64_t key;
	} id;
	UT_hash_handle hh;
	max_align_t data[];
};

#define STRIPES 64

struct stripe {
	pthread_rwlock_t lock;
	struct kept_answer *table;
} __attribute__((aligned(64))); /* a cache line each: readers do not share lines */

struct answer_table {
	struct stripe stripes[STRIPES];
};

struct answer_table *answer_table__new(void)
{
	struct answer_table *t = aligned_alloc(64, sizeof(*t));

	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < STRIPES; i++)
		pthread_rwlock_init(&t->stripes[i].lock, NULL);
	return t;
}

void answer_table__free(struct answer_table *t)
{
	if (!t)
		return;
	for (int i = 0; i < STRIPES; i++) {
		struct kept_answer *a, *tmp;

		HASH_ITER(hh, t->stripes[i].table, a, tmp) {
			HASH_DEL(t->stripes[i].table, a);
			free(a);
		}
		pthread_rwlock_destroy(&t->stripes[i].lock);
	}
	free(t);
}

static struct stripe *stripe_of(struct answer_table *t, const void *owner, uint64_t key)
{
	uint64_t h = ((uintptr_t)owner ^ key * 0x9E3779B97F4A7C15ull) * 0xff51afd7ed558ccdull;

	return &t->stripes[h >> 58]; /* 6 bits: STRIPES */
}

const void *answer_table__find(struct answer_table *t, const void *owner, uint64_t key)
{
	struct stripe *s = stripe_of(t, owner, key);
	struct kept_answer probe, *a;

	memset(&probe.id, 0, sizeof(probe.id));
	probe.id.owner = owner;
	probe.id.key = key;
	pthread_rwlock_rdlock(&s->lock);
	HASH_FIND(hh, s->table, &probe.id, sizeof(probe.id), a);
	pthread_rwlock_unlock(&s->lock);
	return a ? a->data : NULL;
}

const void *answer_table__add(struct answer_table *t, const void *owner, uint64_t key,
			      const void *blob, size_t size, int *first)
{
	struct stripe *s = stripe_of(t, owner, key);
	struct kept_answer *a = malloc(sizeof(*a) + size), *was;

	*first = 0;
	if (!a)
		return NULL;
	memset(&a->id, 0, sizeof(a->id));
	a->id.owner = owner;
	a->id.key = key;
	memcpy(a->data, blob, size);
	pthread_rwlock_wrlock(&s->lock);
	HASH_FIND(hh, s->table, &a->id, sizeof(a->id), was);
	if (!was)
		HASH_ADD(hh, s->table, id, sizeof(a->id), a);
	pthread_rwlock_unlock(&s->lock);
	if (was) {
		free(a);
		*first = 1;
		return was->data;
	}
	return a->data;
}

size_t answer_table__entry_bytes(void)
{
	return sizeof(struct kept_answer);
}
