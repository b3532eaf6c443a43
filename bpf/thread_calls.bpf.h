/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --sample-bytes R: every thread's calls, counted exactly, though few of them are traced.
 *
 * A call counts one in its CPU's counters (a per-CPU array: its lookup is inlined, and the
 * count is one atomic add, which preemption cannot split), with no helper call: the
 * unsampled path of a call is its draw and this. The counts on a CPU are those of the task
 * running there since the CPU last switched tasks; at each switch (sched_switch) they are
 * added to the task's entry in thread_calls and cleared; at a thread's exit they are sent
 * to userspace in its exit event (process.bpf.c); when tracing ends userspace reads what is
 * left (user/trace/sampling.c). The switch and the exit run with preemption off, so no
 * call's count falls between a CPU's counters and its thread's entry.
 */
#ifndef HEAPTAP_THREAD_CALLS_BPF_H
#define HEAPTAP_THREAD_CALLS_BPF_H

#include "heaptap.bpf.h"

/* A CPU's counts since it last switched tasks, and the task it switched to (its owner). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ht_cpu_calls);
} cpu_calls SEC(".maps") __weak;

/* A thread's counts, flushed at its switches: (pid << 32 | tid) -> its counts. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 16);
	__type(key, __u64);
	__type(value, struct ht_thread_calls);
} thread_calls SEC(".maps") __weak;

/* One call of func by the current thread. */
static __always_inline void thread_calls__count(__u32 func)
{
	__u32 zero = 0;
	struct ht_cpu_calls *c = bpf_map_lookup_elem(&cpu_calls, &zero);

	if (c && func < HT_NR_FUNCS)
		__sync_fetch_and_add(&c->calls[func], 1);
}

/*
 * The CPU's counts are those of task (pid, tid), which is leaving it: add them to its
 * entry, made if need be. Preemption off. A task that made no counted calls costs the
 * loads of the counts and nothing more; counts without memory for an entry are lost, and
 * counted as such.
 */
static __always_inline void thread_calls__flush(__u32 pid, __u32 tid)
{
	static const struct ht_thread_calls none;
	__u64 key = (__u64)pid << 32 | tid, any = 0;
	struct ht_thread_calls *t;
	struct ht_cpu_calls *c;
	__u32 zero = 0;

	c = bpf_map_lookup_elem(&cpu_calls, &zero);
	if (!c)
		return;
	for (int f = 0; f < HT_NR_FUNCS; f++)
		any |= c->calls[f];
	if (!any)
		return;
	t = bpf_map_lookup_elem(&thread_calls, &key);
	if (!t) {
		bpf_map_update_elem(&thread_calls, &key, &none, BPF_NOEXIST);
		t = bpf_map_lookup_elem(&thread_calls, &key);
	}
	if (!t)
		count_loss(pid, LOSS_INFLIGHT_FULL);
	for (int f = 0; f < HT_NR_FUNCS; f++) {
		if (t)
			t->calls[f] += c->calls[f];
		c->calls[f] = 0;
	}
}

#endif
