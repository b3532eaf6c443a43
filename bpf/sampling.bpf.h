/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --sample-bytes R: which malloc-family calls are traced.
 *
 * A call that returns a block is drawn once, at its entry, with the probability
 * p = 1 - exp(-s/R) of the s bytes it asks for (include/heaptap.h: the bucket table). An
 * unsampled call takes no stack, keeps no in-flight record and sends nothing. A sampled
 * block's address is kept until its release, so that the release of a sampled block is
 * reported and that of any other costs one map operation and sends nothing: outstanding
 * bytes, the peak and likely leaks hold for the sampled sites.
 *
 * In exact mode (R = 0, the default) sample_bytes is 0 in .rodata: the verifier removes
 * every branch below, and the programs are what they were.
 */
#ifndef HEAPTAP_SAMPLING_BPF_H
#define HEAPTAP_SAMPLING_BPF_H

#include "heaptap.bpf.h"

/* Set before load (user/trace/sampling.c): R in bytes, and 2^32 * p per size bucket. */
const volatile __u64 sample_bytes;
const volatile __u64 sample_threshold[HT_SAMPLE_BUCKETS];

/*
 * The sampled blocks still allocated (one entry each, ~1/p of the blocks): memory taken
 * as they come. A sampled block that finds it full goes unkept, counted as an in-flight
 * loss: its release will not be seen.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 20);
	__type(key, struct ht_sampled_key);
	__type(value, __u8);
} sampled_blocks SEC(".maps");

/*
 * A counting filter in front of sampled_blocks: per slot (a hash of the address), the
 * sampled blocks kept that hash there. A release whose slot counts none was not sampled:
 * one load of global data and no helper call, where a hash map lookup hashes its key and
 * walks a bucket (and the pid it is keyed by costs a helper call: on this path, each call
 * costs more than the rest of the path). Addresses, not pids: blocks of other processes
 * at the same address only send a release on to the map, which is keyed by pid too. With
 * N sampled blocks outstanding, a release goes on to the map with probability
 * N / HT_SAMPLE_FILTER_SLOTS at most. A process that ends leaves its blocks to userspace,
 * which takes them out of both (sampling__forget_blocks).
 */
__u32 sampled_filter[HT_SAMPLE_FILTER_SLOTS];

/*
 * The draws' generator: splitmix64, one state per CPU, seeded from the kernel's
 * bpf_get_prandom_u32 at its first use. A per-CPU array's lookup is inlined (Linux 6.10),
 * where bpf_get_prandom_u32 is two calls deep: this costs a third of it. Two programs that
 * preempt each other on one CPU may take the same draw; the draws stay independent of the
 * sizes drawn, and so the estimates unbiased.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sample_rng SEC(".maps");

static __always_inline __u32 sample__random(void)
{
	__u32 zero = 0;
	__u64 *state = bpf_map_lookup_elem(&sample_rng, &zero), z;

	if (!state)
		return bpf_get_prandom_u32();
	if (!*state)
		*state = (__u64)bpf_get_prandom_u32() << 32 | bpf_get_prandom_u32();
	z = *state + 0x9e3779b97f4a7c15ull;
	*state = z;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (__u32)((z ^ (z >> 31)) >> 32);
}

/* Is a call that allocates drawn? One pseudo-random draw against its bucket's threshold. */
static __always_inline bool sample__draw(__u32 func, __u64 a0, __u64 a1, __u64 a2)
{
	__u32 bucket = ht_sample_bucket(ht_sample_size(func, a0, a1, a2));

	return (__u64)sample__random() < sample_threshold[bucket & (HT_SAMPLE_BUCKETS - 1)];
}

/*
 * The block at ptr is released: was it a sampled one? Then it is forgotten. The pid only
 * past the filter: an unsampled block's release calls no helper.
 */
static __always_inline bool sample__released(__u64 ptr)
{
	struct ht_sampled_key key = { .ptr = ptr };
	__u32 slot = ht_sample_filter_slot(ptr);

	if (!ptr || !sampled_filter[slot])
		return false;
	/* Only a sampled block's release (or a collision in the filter) reaches the map. */
	key.pid = bpf_get_current_pid_tgid() >> 32;
	if (bpf_map_delete_elem(&sampled_blocks, &key))
		return false;
	__sync_fetch_and_add(&sampled_filter[slot], -1);
	return true;
}

/* A sampled block was returned at ptr: keep it until its release. */
static __always_inline void sample__keep(__u32 pid, __u64 ptr)
{
	struct ht_sampled_key key = { .pid = pid, .ptr = ptr };
	__u8 one = 1;

	if (!ptr)
		return;
	/* BPF_NOEXIST: a block kept already (its release lost) is counted once in the filter. */
	if (!bpf_map_update_elem(&sampled_blocks, &key, &one, BPF_NOEXIST))
		__sync_fetch_and_add(&sampled_filter[ht_sample_filter_slot(ptr)], 1);
	else if (!bpf_map_lookup_elem(&sampled_blocks, &key))
		count_loss(pid, LOSS_INFLIGHT_FULL);
}

/*
 * At a call's entry in sampled mode: its HT_F_SAMPLED / HT_F_OLD_SAMPLED flags; 0: the
 * call is not traced. free: its block was sampled. realloc, reallocarray: the new block
 * is drawn, the old one may have been sampled. The others: drawn.
 */
static __always_inline __u32 sample__enter(__u32 func, __u64 a0, __u64 a1, __u64 a2)
{
	__u32 flags = 0;

	if (func == HT_FREE)
		return sample__released(a0) ? HT_F_OLD_SAMPLED : 0;
	if (sample__draw(func, a0, a1, a2))
		flags |= HT_F_SAMPLED;
	if ((func == HT_REALLOC || func == HT_REALLOCARRAY) && sample__released(a0))
		flags |= HT_F_OLD_SAMPLED;
	return flags;
}

/*
 * At a traced call's return: keep its new block if it was drawn; a realloc that failed
 * left its old block where it was, still sampled.
 */
static __always_inline void sample__exit(const struct ht_call_event *ev, __u64 ptr)
{
	if ((ev->flags & HT_F_SAMPLED) && ptr)
		sample__keep(ev->pid, ptr);
	if ((ev->flags & HT_F_OLD_SAMPLED) && !ptr && ev->func != HT_FREE &&
	    ht_sample_size(ev->func, ev->args[0], ev->args[1], ev->args[2]))
		sample__keep(ev->pid, ev->args[0]);
}

#endif
