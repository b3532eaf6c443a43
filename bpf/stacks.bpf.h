/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Stacks deduplicated in a map, so that a call event carries an id, not its frames.
 *
 * The id is a hash of the frames, by file and offset where the node shares the stack (its
 * pid 0, its id with HT_STACK_ID_SHARED: include/heaptap.h), else of the process and the
 * frames' addresses. Two different stacks may hash alike: a stack is stored under an id
 * only if the slot is free or holds the very same frames, otherwise the next ids are
 * tried. When no slot takes it (the map is full), the event carries its frames inline
 * instead: a stack is never merged with another, nor lost. A stack's first event carries
 * its frames (addresses) as well as its new id. Userspace deletes a process's own stacks
 * when it exits; shared ones stay while heaptap runs. A stack deeper than the map's
 * entries (HT_STORED_FRAMES) always travels inline.
 */
#ifndef HEAPTAP_STACKS_BPF_H
#define HEAPTAP_STACKS_BPF_H

#include "heaptap.bpf.h"

#define EEXIST 17

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* memory as stacks appear, not 200 MiB at once */
	__uint(max_entries, 1 << 19);
	__type(key, __u64);
	__type(value, struct ht_stored_stack);
} stacks SEC(".maps") __weak; /* shared with custom_alloc.bpf.c and os_view.bpf.c */

/* Ids tried per stack before it goes inline. */
#define STACK_PROBES 4

/*
 * Bits of the hash kept in an id. Always 64, except in the test that makes every stack
 * collide (HEAPTAP_STACK_HASH_BITS) to show that collisions never merge stacks.
 */
const volatile __u32 stack_hash_bits __weak = 64;

/*
 * The hash and the compare are global functions, verified once rather than in each of
 * their callers' states (their loops are most of what the verifier walks through of a
 * stack's id); stack_id_of itself stays inline: the map takes a stack to store only from
 * a map value (6.1), not from the memory a global function is given.
 */
__weak __noinline __u64 stack_hash(const struct ht_stack *st)
{
	/* FNV-1a over the 64-bit words: cheap, and collisions are handled anyway. */
	__u64 h;

	if (!st)
		return 0;
	h = 0xcbf29ce484222325ULL ^ ((__u64)st->pid << 32 | st->nr);

	for (__u32 i = 0; i < HT_MAX_FRAMES && i < st->nr; i++)
		h = (h ^ st->frames[i]) * 0x100000001b3ULL;
	if (stack_hash_bits < 64)
		h &= (1ULL << stack_hash_bits) - 1;
	return st->pid ? h & ~HT_STACK_ID_SHARED : h | HT_STACK_ID_SHARED;
}

/* The id tried after id: the next, of the same kind (shared or not). */
static __always_inline __u64 next_stack_id(__u64 id)
{
	return ((id + 1) & ~HT_STACK_ID_SHARED) | (id & HT_STACK_ID_SHARED);
}

__weak __noinline bool same_stack(const struct ht_stored_stack *a, const struct ht_stack *b)
{
	if (!a || !b || a->pid != b->pid || a->nr != b->nr)
		return false;
	for (__u32 i = 0; i < HT_STORED_FRAMES && i < a->nr; i++) {
		if (a->frames[i] != b->frames[i])
			return false;
	}
	return true;
}

/*
 * The id under which st is stored, or 0 when it could not be stored. *fresh: stored just
 * now, so the event carries the frames too and userspace need not look them up.
 */
static __always_inline __u64 stack_id_of(const struct ht_stack *st, bool *fresh)
{
	__u64 id;

	if (st->nr > HT_STORED_FRAMES)
		return 0;
	id = stack_hash(st);
	for (int probe = 0; probe < STACK_PROBES; probe++, id = next_stack_id(id)) {
		const struct ht_stored_stack *known;
		long err;

		if (id == 0)
			continue; /* 0 means "inline" */
		known = bpf_map_lookup_elem(&stacks, &id);
		if (!known) {
			/* Its first part: struct ht_stored_stack's layout. */
			err = bpf_map_update_elem(&stacks, &id, st, BPF_NOEXIST);
			if (!err) {
				*fresh = true;
				return id;
			}
			if (err != -EEXIST)
				return 0; /* the map is full */
			/* Another CPU stored a stack under this id just now: which one? */
			known = bpf_map_lookup_elem(&stacks, &id);
			if (!known)
				return 0;
		}
		if (same_stack(known, st))
			return id;
	}
	return 0;
}

#endif
