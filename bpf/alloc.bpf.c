// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Probes on the malloc family. One entry program and one return program serve all ten
 * entry points; the attach cookie says which function a probe sits on.
 *
 * A call is reported once, when its outermost invocation returns (free: at its entry,
 * since it has nothing to return and must be read before the block is released). glibc
 * calls its own public entry points (realloc(NULL, n) reaches malloc, realloc(p, 0) reaches
 * free, reallocarray reaches realloc), so a per-thread depth keeps those inner calls silent.
 */
#include "heaptap.bpf.h"
#include <bpf/bpf_tracing.h>
#include "inflight.bpf.h"

/*
 * Set by userspace when tracing ends: removing the probes takes a while, and what they
 * would report then is past the end of the run.
 */
bool tracing_stopped;

/*
 * glibc: the word before a block holds its chunk size; the low 3 bits are flags. Read for
 * every allocator (harmless); userspace uses it only for glibc.
 */
#define GLIBC_SIZE_BITS 0x7ULL
#define GLIBC_IS_MMAPPED 0x2ULL

static __always_inline __u64 usable_size(__u64 ptr, __u32 *flags)
{
	__u64 word;

	if (!ptr)
		return 0;
	if (bpf_probe_read_user(&word, sizeof(word), (void *)(ptr - sizeof(word)))) {
		*flags |= HT_F_READ_FAILED;
		return 0;
	}
	/* An mmapped chunk has its header and no neighbour to lend it the next size word. */
	return (word & ~GLIBC_SIZE_BITS) - ((word & GLIBC_IS_MMAPPED) ? 16 : 8);
}

static __always_inline void send_call(struct ht_call_event *ev)
{
	__u64 size = HT_CALL_EVENT_HEADER_SIZE;
	__u32 nr = ev->stack.nr;

	if (nr > HT_MAX_FRAMES)
		nr = HT_MAX_FRAMES;
	if (ht_call_carries_frames(ev))
		size += HT_STACK_HEADER_SIZE + nr * sizeof(__u64);
	send_batched(ev->pid, ev, size);
}

SEC("uprobe")
int BPF_KPROBE(alloc_entry)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u32 func = HT_COOKIE_FUNC(cookie);
	struct ht_call_event *ev;
	struct inflight *in;
	bool fresh = false;

	if (tracing_stopped)
		return 0;
	in = current_inflight(true);
	if (!in) {
		count_loss(id >> 32, LOSS_INFLIGHT_FULL);
		return 0;
	}
	if (in->depth > 0) {
		/* glibc calling itself; free has no return probe to undo a depth step. */
		if (func != HT_FREE)
			in->depth++;
		return 0;
	}

	ev = &in->ev;
	ev->type = HT_EV_CALL;
	ev->func = func;
	ev->pid = id >> 32;
	ev->tid = (__u32)id;
	ev->args[0] = PT_REGS_PARM1(ctx);
	ev->args[1] = PT_REGS_PARM2(ctx);
	ev->args[2] = PT_REGS_PARM3(ctx);
	ev->ret = 0;
	ev->flags = 0;
	ev->alloc_ptr = 0;
	ev->alloc_usable = 0;
	ev->freed_usable = 0;
	/* The old block must be measured now: the call is about to release it. */
	if (func == HT_FREE || func == HT_REALLOC || func == HT_REALLOCARRAY)
		ev->freed_usable = usable_size(ev->args[0], &ev->flags);
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	ev->stack.pid = ev->pid;
	/* Frame 0 is the entry, even when the probe sits past it: the same stacks either way. */
	cached_user_stack(ctx, HT_COOKIE_SKIP(cookie), &in->call, &ev->stack, &ev->stack_id,
			  &ev->flags, &fresh, &in->stack_cache);
	if (fresh)
		ev->flags |= HT_F_STACK_NEW;

	if (func == HT_FREE) {
		send_call(ev);
	} else {
		in->depth = 1;
		return_slot__note(&in->call, PT_REGS_SP(ctx), &ev->stack);
	}
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(alloc_return)
{
	struct ht_call_event *ev;
	struct inflight *in;
	__u64 ptr;

	if (tracing_stopped)
		return 0;
	in = current_inflight(false);
	if (!in || in->depth == 0)
		return 0; /* its entry was lost, and counted there */
	if (--in->depth > 0)
		return 0;
	in->call.addr = 0; /* returned: its slot holds other frames from now on */

	ev = &in->ev;
	ev->ret = PT_REGS_RC(ctx);
	ptr = ev->ret;
	if (ev->func == HT_POSIX_MEMALIGN) {
		/* It returns an error code and hands the block out through its first argument. */
		ptr = 0;
		if (ev->ret == 0 &&
		    bpf_probe_read_user(&ptr, sizeof(ptr), (void *)ev->args[0]))
			ev->flags |= HT_F_READ_FAILED;
	}
	ev->alloc_ptr = ptr;
	ev->alloc_usable = usable_size(ptr, &ev->flags);
	send_call(ev);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
