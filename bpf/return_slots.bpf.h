/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Return addresses put back where uretprobes replaced them.
 *
 * A return probe replaces its function's return address on the user stack with the
 * kernel's trampoline, so a stack unwound from inside that call (a malloc made inside a
 * pool's pool_alloc, a pool call made inside a malloc that forwards to it) would end at
 * the trampoline. The entry program knows both halves before the kernel writes over them:
 * the slot is its rsp (the probe sits at the function's entry, or past instructions that
 * leave rsp alone) and the original is its stack's frames[1], read from that slot. The
 * thread's in-flight record keeps them until the call returns; an unwind loads them once
 * and reads the original wherever it reads a return address from a recorded slot.
 */
#ifndef HEAPTAP_RETURN_SLOTS_BPF_H
#define HEAPTAP_RETURN_SLOTS_BPF_H

#include "heaptap.bpf.h"

/* A malloc-family call's and an --allocator API call's: one of each in flight per thread. */
struct return_slots {
	__u64 any; /* 0: none recorded, and a frame's check is one compare */
	struct return_slot call, api;
};

/*
 * Read, never written: the slots of a thread without an in-flight record. Words, not
 * struct return_slot, for the skeleton's sake (it declares .bss in userspace's terms).
 */
__u64 no_return_slots[4] __weak;

/*
 * The slots replaced on a thread's stack: recorded, its in-flight record's call and api
 * (NULL: none). Without branches on what was recorded: the verifier then takes one
 * state, not several, into the walk.
 */
static __always_inline void return_slots__load(struct return_slots *rs,
					       const struct return_slot *recorded)
{
	if (!recorded)
		recorded = (const struct return_slot *)no_return_slots;
	rs->call = recorded[0];
	rs->api = recorded[1];
	rs->any = rs->call.addr | rs->api.addr;
}

/* The return address read at addr: the original where a uretprobe put its trampoline. */
static __always_inline __u64 original_return(const struct return_slots *rs, __u64 addr, __u64 ra)
{
	if (!rs->any)
		return ra;
	if (rs->call.addr == addr)
		return rs->call.ra;
	if (rs->api.addr == addr)
		return rs->api.ra;
	return ra;
}

/*
 * At the entry of a call with a return probe, once its stack is unwound: keep its slot for
 * the unwinds made inside it, until its return clears it.
 */
static __always_inline void return_slot__note(struct return_slot *slot, __u64 sp,
					      const struct ht_stack *stack)
{
	slot->ra = stack->frames[1];
	slot->addr = stack->nr >= 2 ? sp : 0;
}

#endif
