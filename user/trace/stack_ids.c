// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "stack_ids.h"

static int append(__u64 **keys, size_t *nr, size_t *cap, __u64 id)
{
	if (*nr == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 1024;
		__u64 *grown = realloc(*keys, grown_cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		*keys = grown;
		*cap = grown_cap;
	}
	(*keys)[*nr] = id;
	/* A queue's length is read without its lock, as a hint (dead_ids__queued). */
	__atomic_store_n(nr, *nr + 1, __ATOMIC_RELAXED);
	return 0;
}

/* Delete keys[0..nr) at once, or one by one where the batch stopped. */
static void delete_all(int map_fd, __u64 *keys, size_t nr)
{
	__u32 done = nr;

	if (nr && bpf_map_delete_batch(map_fd, keys, &done, NULL)) {
		for (size_t i = done; i < nr; i++)
			bpf_map_delete_elem(map_fd, &keys[i]);
	}
}

int stack_ids__own(struct stack_ids *ids, __u64 id)
{
	if (id & HT_STACK_ID_SHARED)
		return 0; /* the node's: other processes may meet it still */
	return append(&ids->owned, &ids->nr, &ids->cap, id);
}

int stack_ids__frames(const struct stack_ids *ids, __u64 id, struct ht_stack *out)
{
	struct ht_stored_stack stored;

	if (bpf_map_lookup_elem(ids->map_fd, &id, &stored))
		return -errno;
	if (stored.nr > HT_STORED_FRAMES)
		return -EINVAL;
	out->pid = stored.pid;
	out->nr = stored.nr;
	memcpy(out->frames, stored.frames, stored.nr * sizeof(stored.frames[0]));
	return 0;
}

void dead_ids__init(struct dead_ids *dead, int map_fd)
{
	*dead = (struct dead_ids){ .map_fd = map_fd };
	pthread_mutex_init(&dead->lock, NULL);
}

void stack_ids__bury(struct stack_ids *ids, struct dead_ids *dead)
{
	pthread_mutex_lock(&dead->lock);
	for (size_t i = 0; i < ids->nr; i++) {
		if (append(&dead->keys, &dead->nr, &dead->cap, ids->owned[i]))
			bpf_map_delete_elem(dead->map_fd, &ids->owned[i]); /* slow, never leaked */
	}
	pthread_mutex_unlock(&dead->lock);
	stack_ids__clear(ids);
}

void stack_ids__clear(struct stack_ids *ids)
{
	free(ids->owned);
	*ids = (struct stack_ids){ .map_fd = ids->map_fd };
}

size_t dead_ids__delete(struct dead_ids *dead)
{
	size_t nr;

	pthread_mutex_lock(&dead->lock);
	nr = dead->nr;
	/* One call for all: an MPI rank ends with tens of thousands of ids. */
	delete_all(dead->map_fd, dead->keys, nr);
	__atomic_store_n(&dead->nr, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&dead->lock);
	return nr;
}

void dead_ids__free(struct dead_ids *dead)
{
	free(dead->keys);
	pthread_mutex_destroy(&dead->lock);
	*dead = (struct dead_ids){ .map_fd = dead->map_fd };
}

size_t stack_ids__delete_shared(int map_fd)
{
	__u64 *keys = NULL, key, next;
	size_t nr = 0, cap = 0;

	for (__u64 *prev = NULL; bpf_map_get_next_key(map_fd, prev, &next) == 0; prev = &key) {
		key = next;
		if ((key & HT_STACK_ID_SHARED) && append(&keys, &nr, &cap, key))
			break; /* out of memory: the rest stay, as they would have */
	}
	delete_all(map_fd, keys, nr);
	free(keys);
	return nr;
}
