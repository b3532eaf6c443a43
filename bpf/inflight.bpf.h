/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Each traced thread's state between a call's entry and its return. */
#ifndef HEAPTAP_INFLIGHT_BPF_H
#define HEAPTAP_INFLIGHT_BPF_H

#include "heaptap.bpf.h"
#include "stack_cache.bpf.h"

struct inflight {
	__u32 depth;
	__u32 untraced; /* --sample-bytes: the outer call in flight is an unsampled realloc */
	/* Kept from a call's entry to its return (return_slots.bpf.h); the two are adjacent. */
	struct return_slot call; /* the malloc-family call's */
	struct return_slot api;	 /* the --allocator API call's (custom_alloc.bpf.c) */
	struct ht_call_event ev; /* built at entry, completed and sent at return */
	struct ht_stack stack_key; /* ev's stack as the stacks map keeps it */
	struct stack_cache stack_cache;
};

/*
 * In the thread's task local storage: found in a few loads, where a hash map keyed by tid
 * costs a hash, a bucket walk and their cache misses on every call. The kernel frees it
 * with the thread.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct inflight);
} inflight SEC(".maps") __weak;

/* The current thread's state; with create, made (zeroed) if it has none. NULL: no memory. */
static __always_inline struct inflight *current_inflight(bool create)
{
	return bpf_task_storage_get(&inflight, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

#endif
