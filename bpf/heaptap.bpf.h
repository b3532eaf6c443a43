/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Maps and helpers shared by heaptap's BPF objects (weak: each object may include them). */
#ifndef HEAPTAP_BPF_H
#define HEAPTAP_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "heaptap.h"

/* Ordered stream of events to userspace; userspace sizes it before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps") __weak;

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
 * polls on a short timer). A wakeup per event costs the traced thread more than the rest
 * of a program: batch them.
 */
#define WAKEUP_BACKLOG (2 << 20)

static __always_inline __u64 batched_wakeup(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > WAKEUP_BACKLOG ?
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

#endif
