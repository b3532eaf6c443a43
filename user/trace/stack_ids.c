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
	(*keys)[(*nr)++] = id;
	return 0;
}

int stack_ids__own(struct stack_ids *ids, __u64 id)
{
	return append(&ids->owned, &ids->nr, &ids->cap, id);
}

int stack_ids__frames(const struct stack_ids *ids, __u64 id, struct ht_stack *out)
{
	if (bpf_map_lookup_elem(ids->map_fd, &id, out))
		return -errno;
	return out->nr <= HT_MAX_FRAMES ? 0 : -EINVAL;
}

void stack_ids__bury(struct stack_ids *ids, struct dead_ids *dead)
{
	for (size_t i = 0; i < ids->nr; i++) {
		if (append(&dead->keys, &dead->nr, &dead->cap, ids->owned[i]))
			bpf_map_delete_elem(dead->map_fd, &ids->owned[i]); /* slow, never leaked */
	}
	stack_ids__clear(ids);
}

void stack_ids__clear(struct stack_ids *ids)
{
	free(ids->owned);
	*ids = (struct stack_ids){ .map_fd = ids->map_fd };
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
