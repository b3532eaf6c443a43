// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The OS view: mmap, munmap, mremap, brk and madvise(MADV_DONTNEED/MADV_FREE) of traced
 * processes, from the kernel's syscall tracepoints. tp_btf, not tracepoint (no tracefs), and
 * never uprobes on libc's wrappers: Open MPI's memory patcher rewrites them (DESIGN.md
 * pitfall 7), and a program may make the system call without them.
 *
 * Every system call of every process passes here: the syscall number is checked first (a
 * compare), then the traced set (one hash lookup); only a traced process's mapping calls
 * go further. A call is sent at its exit, when its result is known; the arguments are still
 * in the saved user registers then. Only brk needs its entry: it returns the new break, and
 * the old one is read from the mm before the call.
 */
#include "heaptap.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "stacks.bpf.h"
#include "inflight.bpf.h"

/* x86-64 system call numbers */
#define NR_MMAP 9
#define NR_MUNMAP 11
#define NR_BRK 12
#define NR_MREMAP 25
#define NR_MADVISE 28

#define MADV_DONTNEED 4
#define MADV_FREE 8

/* tid -> the break before its brk call in flight; LRU: a thread killed inside one leaks none */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} brk_before SEC(".maps");

/* The event being built: too large for the BPF stack. */
struct os_scratch {
	__u32 busy; /* a preempting program on this CPU must not write over it */
	__u32 pad;
	struct ht_os_event ev;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct os_scratch);
} os_scratch SEC(".maps");

static __always_inline int os_call_of(long nr)
{
	switch (nr) {
	case NR_MMAP:
		return HT_OS_MMAP;
	case NR_MUNMAP:
		return HT_OS_MUNMAP;
	case NR_MREMAP:
		return HT_OS_MREMAP;
	case NR_BRK:
		return HT_OS_BRK;
	case NR_MADVISE:
		return HT_OS_MADVISE;
	}
	return -1;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(os_call_enter, struct pt_regs *regs, long nr)
{
	struct task_struct *task;
	__u64 id, brk;
	__u32 pid, tid;

	if (nr != NR_BRK)
		return 0;
	id = bpf_get_current_pid_tgid();
	pid = id >> 32;
	if (!bpf_map_lookup_elem(&targets, &pid))
		return 0;
	tid = (__u32)id;
	task = bpf_get_current_task_btf();
	brk = BPF_CORE_READ(task, mm, brk);
	bpf_map_update_elem(&brk_before, &tid, &brk, BPF_ANY);
	return 0;
}

static __always_inline void send_os_event(struct ht_os_event *ev)
{
	__u64 size = HT_OS_EVENT_HEADER_SIZE;
	__u64 nr = ev->stack.nr;

	if (nr > HT_MAX_FRAMES)
		nr = HT_MAX_FRAMES;
	barrier_var(nr); /* keep the clamped register: the verifier must see the bound */
	if (!ev->stack_id || (ev->flags & HT_F_STACK_NEW))
		size += HT_STACK_HEADER_SIZE + nr * sizeof(__u64);
	send_batched(ev->pid, ev, size);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(os_call_exit, struct pt_regs *regs, long ret)
{
	long nr = regs->orig_ax;
	int call = os_call_of(nr);
	struct ht_os_event *ev;
	struct os_scratch *slot;
	struct inflight *in;
	__u32 zero = 0;
	__u32 pid, tid;
	__u64 id, *brk;
	bool fresh = false;

	if (call < 0)
		return 0;
	id = bpf_get_current_pid_tgid();
	pid = id >> 32;
	if (!bpf_map_lookup_elem(&targets, &pid))
		return 0;
	tid = (__u32)id;
	if (call == HT_OS_MADVISE && regs->dx != MADV_DONTNEED && regs->dx != MADV_FREE)
		return 0;
	slot = bpf_map_lookup_elem(&os_scratch, &zero);
	if (!slot)
		return 0;
	if (slot->busy) {
		count_loss(pid, LOSS_INFLIGHT_FULL);
		return 0;
	}
	slot->busy = 1;
	ev = &slot->ev;
	ev->type = HT_EV_OS_CALL;
	ev->call = call;
	ev->pid = pid;
	ev->tid = tid;
	ev->args[0] = regs->di;
	ev->args[1] = regs->si;
	ev->args[2] = regs->dx;
	ev->args[3] = regs->r10;
	ev->args[4] = regs->r8;
	ev->ret = ret;
	ev->old_brk = 0;
	ev->flags = 0;
	ev->alloc_func = 0;
	if (call == HT_OS_BRK) {
		brk = bpf_map_lookup_elem(&brk_before, &tid);
		if (brk) {
			ev->old_brk = *brk;
			bpf_map_delete_elem(&brk_before, &tid);
		}
	}
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	in = current_inflight(false);
	if (in && in->depth > 0) {
		/*
		 * Inside malloc, calloc, realloc or memalign: the allocator's own mapping, made
		 * for that call, charged where the call is: its stack is the call's, unwound
		 * at its entry (no second unwind).
		 */
		ev->flags = HT_F_IN_ALLOCATOR |
			    (in->ev.flags & (HT_F_STACK_TRUNC | HT_F_STACK_UNSUPPORTED));
		ev->alloc_func = in->ev.func;
		ev->stack_id = in->ev.stack_id;
		ev->stack.nr = 0;
		if (!ev->stack_id)
			bpf_probe_read_kernel(&ev->stack, sizeof(ev->stack), &in->ev.stack);
		send_os_event(ev);
		slot->busy = 0;
		return 0;
	}
	ev->stack.pid = ev->pid;
	/* The user pc is after the syscall instruction, inside the wrapper: frame 0. */
	ev->stack.nr = unwind_user_stack(regs, 0, ev->pid, in ? &in->call : NULL, ev->stack.frames,
					 &ev->flags);
	ev->stack_id = stack_id_of(&ev->stack, &fresh);
	if (fresh)
		ev->flags |= HT_F_STACK_NEW;
	send_os_event(ev);
	slot->busy = 0;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
