// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "stack_ids.h"

struct known_stack {
	__u64 id;
	__u32 nr;
	__u64 *frames;
	UT_hash_handle hh;
};

const __u64 *stack_ids__frames(struct stack_ids *ids, __u64 id, __u32 *nr)
{
	struct known_stack *k;
	struct ht_stack stack;

	HASH_FIND(hh, ids->by_id, &id, sizeof(id), k);
	if (!k) {
		if (bpf_map_lookup_elem(ids->map_fd, &id, &stack) || stack.nr > HT_MAX_FRAMES)
			return NULL;
		k = calloc(1, sizeof(*k));
		if (k)
			k->frames = malloc((stack.nr ? stack.nr : 1) * sizeof(*k->frames));
		if (!k || !k->frames) {
			free(k);
			return NULL;
		}
		k->id = id;
		k->nr = stack.nr;
		memcpy(k->frames, stack.frames, stack.nr * sizeof(*k->frames));
		HASH_ADD(hh, ids->by_id, id, sizeof(k->id), k);
	}
	*nr = k->nr;
	return k->frames;
}

void stack_ids__release(struct stack_ids *ids)
{
	unsigned int nr = HASH_COUNT(ids->by_id);
	struct known_stack *k, *tmp;
	__u64 *keys = nr ? malloc(nr * sizeof(*keys)) : NULL;
	__u32 count = 0;

	HASH_ITER(hh, ids->by_id, k, tmp) {
		if (keys)
			keys[count++] = k->id;
		else
			bpf_map_delete_elem(ids->map_fd, &k->id);
		HASH_DEL(ids->by_id, k);
		free(k->frames);
		free(k);
	}
	/* One call for all: an MPI rank ends with tens of thousands of ids. */
	if (keys && count) {
		__u32 done = count;

		if (bpf_map_delete_batch(ids->map_fd, keys, &done, NULL)) {
			for (__u32 i = done; i < count; i++)
				bpf_map_delete_elem(ids->map_fd, &keys[i]);
		}
	}
	free(keys);
}
