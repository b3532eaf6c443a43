/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Maps and helpers shared by heaptap's BPF objects (weak: each object may include them). */
#ifndef HEAPTAP_BPF_H
#define HEAPTAP_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "heaptap.h"

/*
 * Ordered streams of events to userspace, one per shard of processes (ht_shard_of): a
 * process's events always go to the same ring, drained by one consumer thread, so that
 * their order is kept. Userspace creates the rings, sizes them and fills the array
 * before load; nr_shards of them are in use.
 */
struct event_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, HT_MAX_SHARDS);
	__type(key, __u32);
	__array(values, struct event_ring);
} event_rings SEC(".maps") __weak;

const volatile __u32 nr_shards __weak = 1;

/* The ring of pid's shard (NULL only if userspace left it out: counted as a loss). */
static __always_inline void *ring_of(__u32 pid)
{
	__u32 shard = ht_shard_of(pid, nr_shards);

	return bpf_map_lookup_elem(&event_rings, &shard);
}

/* Processes being traced (pid -> unused); the exit tracepoint reports only these. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps") __weak;

/* What was lost, per process, so every report can say so. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ht_losses);
} losses SEC(".maps") __weak;

/*
 * A return address a uretprobe replaced with its trampoline: where it lies on the user
 * stack (0: nowhere) and what it was. The unwinder reads the original there
 * (return_slots.bpf.h).
 */
struct return_slot {
	__u64 addr;
	__u64 ra;
};

/*
 * The wakeup flag for an event: none until the ring holds a backlog (the consumer also
 * polls on a short timer), then one each time the backlog grows past another multiple of
 * WAKEUP_BACKLOG. A wakeup costs the traced thread more than the rest of a program (an
 * interrupt it raises on itself), and a consumer that is behind is awake anyway: waking it
 * at every event of a backlog took 16% of sixteen ranks' time at MPI_Init.
 */
#define WAKEUP_BACKLOG (2 << 20)

static __always_inline __u64 batched_wakeup(void *ring, __u64 size)
{
	__u64 avail = bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA);

	return avail / WAKEUP_BACKLOG != (avail + size) / WAKEUP_BACKLOG ?
		       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

enum loss_kind { LOSS_RINGBUF_FULL, LOSS_INFLIGHT_FULL, LOSS_HOLD_SKIPPED };

static __always_inline void count_loss(__u32 pid, enum loss_kind kind)
{
	static const struct ht_losses none;
	struct ht_losses *l = bpf_map_lookup_elem(&losses, &pid);

	if (!l) {
		bpf_map_update_elem(&losses, &pid, &none, BPF_NOEXIST);
		l = bpf_map_lookup_elem(&losses, &pid);
		if (!l)
			return;
	}
	if (kind == LOSS_RINGBUF_FULL)
		__sync_fetch_and_add(&l->ringbuf_full, 1);
	else if (kind == LOSS_INFLIGHT_FULL)
		__sync_fetch_and_add(&l->inflight_full, 1);
	else
		__sync_fetch_and_add(&l->holds_skipped, 1);
}

/* Send an event to pid's ring; a full ring (or none) is counted against the process. */
static __always_inline void send_event(__u32 pid, void *ev, __u64 size, __u64 flags)
{
	void *ring = ring_of(pid);

	if (!ring || bpf_ringbuf_output(ring, ev, size, flags))
		count_loss(pid, LOSS_RINGBUF_FULL);
}

/* The same, waking the consumer only once a backlog builds up. */
static __always_inline void send_batched(__u32 pid, void *ev, __u64 size)
{
	void *ring = ring_of(pid);

	if (!ring || bpf_ringbuf_output(ring, ev, size, batched_wakeup(ring, size)))
		count_loss(pid, LOSS_RINGBUF_FULL);
}

#endif
