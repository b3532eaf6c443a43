// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "stack_ids.h"

struct known_stack {
	__u64 id;
	__u32 nr;
	UT_hash_handle hh;
	__u64 frames[];
};

static struct known_stack *keep(struct stack_ids *ids, __u64 id, const __u64 *frames, __u32 nr)
{
	/* One allocation per stack: an MPI rank has ~20,000. */
	struct known_stack *k = malloc(sizeof(*k) + nr * sizeof(*k->frames));

	if (!k)
		return NULL;
	memset(k, 0, sizeof(*k));
	k->id = id;
	k->nr = nr;
	memcpy(k->frames, frames, nr * sizeof(*k->frames));
	HASH_ADD(hh, ids->by_id, id, sizeof(k->id), k);
	return k;
}

int stack_ids__learn(struct stack_ids *ids, __u64 id, const __u64 *frames, __u32 nr)
{
	struct known_stack *k;

	HASH_FIND(hh, ids->by_id, &id, sizeof(id), k);
	if (k)
		return 0; /* another thread's event with this id came first and read the map */
	return keep(ids, id, frames, nr) ? 0 : -ENOMEM;
}

const __u64 *stack_ids__frames(struct stack_ids *ids, __u64 id, __u32 *nr)
{
	struct known_stack *k;
	struct ht_stack stack;

	HASH_FIND(hh, ids->by_id, &id, sizeof(id), k);
	if (!k) {
		if (bpf_map_lookup_elem(ids->map_fd, &id, &stack) || stack.nr > HT_MAX_FRAMES ||
		    !(k = keep(ids, id, stack.frames, stack.nr)))
			return NULL;
	}
	*nr = k->nr;
	return k->frames;
}

static void forget_all(struct stack_ids *ids, struct dead_ids *dead)
{
	struct known_stack *k, *tmp;

	HASH_ITER(hh, ids->by_id, k, tmp) {
		if (dead && dead->nr == dead->cap) {
			size_t cap = dead->cap ? dead->cap * 2 : 4096;
			__u64 *grown = realloc(dead->keys, cap * sizeof(*grown));

			if (grown) {
				dead->keys = grown;
				dead->cap = cap;
			}
		}
		if (dead && dead->nr < dead->cap)
			dead->keys[dead->nr++] = k->id;
		else if (dead)
			bpf_map_delete_elem(dead->map_fd, &k->id); /* slow, but never leaked */
		HASH_DEL(ids->by_id, k);
		free(k);
	}
}

void stack_ids__bury(struct stack_ids *ids, struct dead_ids *dead)
{
	forget_all(ids, dead);
}

void stack_ids__clear(struct stack_ids *ids)
{
	forget_all(ids, NULL);
}

void dead_ids__delete(struct dead_ids *dead)
{
	__u32 done = dead->nr;

	/* One call for all: an MPI rank ends with tens of thousands of ids. */
	if (dead->nr && bpf_map_delete_batch(dead->map_fd, dead->keys, &done, NULL)) {
		for (size_t i = done; i < dead->nr; i++)
			bpf_map_delete_elem(dead->map_fd, &dead->keys[i]);
	}
	dead->nr = 0;
}

void dead_ids__free(struct dead_ids *dead)
{
	free(dead->keys);
	*dead = (struct dead_ids){ .map_fd = dead->map_fd };
}
