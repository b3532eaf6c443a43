// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Probes on allocator APIs beyond the malloc family (--allocator: TBB's scalable_*, a
 * pool's, a global heap's brk). Apart from alloc.bpf.c so that the malloc family's hot path
 * stays as it is; the unwinder and the stacks map are the same.
 *
 * Each API has a depth of its own per thread: its inner calls to itself stay silent (a
 * realloc that frees), while the mallocs it makes are the malloc family's, reported there.
 */
#include "heaptap.bpf.h"
#include <bpf/bpf_tracing.h>
#include "stacks.bpf.h"
#include "inflight.bpf.h"

struct custom_inflight {
	__u32 depth;
	__u32 out_arg; /* of the call in flight */
	struct ht_custom_event ev;
};

/* One slot per thread that called such an API; least recently used ones give way. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct custom_inflight);
} custom_inflight SEC(".maps");

static const struct custom_inflight empty_custom_inflight;

extern bool tracing_stopped __weak;

static __always_inline void send_custom(struct ht_custom_event *ev)
{
	__u64 size = HT_CUSTOM_EVENT_HEADER_SIZE;
	__u32 nr = ev->stack.nr;

	if (nr > HT_MAX_FRAMES)
		nr = HT_MAX_FRAMES;
	if (!ev->stack_id || (ev->flags & HT_F_STACK_NEW))
		size += HT_STACK_HEADER_SIZE + nr * sizeof(__u64);
	/* These APIs are called less often than malloc: no batching of wakeups here. */
	send_event(ev->pid, ev, size, 0);
}

SEC("uprobe")
int BPF_KPROBE(custom_entry)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u64 cookie = bpf_get_attach_cookie(ctx);
	struct custom_inflight *in;
	struct ht_custom_event *ev;
	struct inflight *thread;
	__u32 tid = (__u32)id;
	bool fresh = false;

	if (tracing_stopped)
		return 0;
	in = bpf_map_lookup_elem(&custom_inflight, &tid);
	if (!in) {
		bpf_map_update_elem(&custom_inflight, &tid, &empty_custom_inflight, BPF_NOEXIST);
		in = bpf_map_lookup_elem(&custom_inflight, &tid);
		if (!in) {
			count_loss(id >> 32, LOSS_INFLIGHT_FULL);
			return 0;
		}
	}
	if (in->depth > 0) {
		/* The API calling itself; at-entry kinds have no return probe to undo a step. */
		if (!HT_CUSTOM_COOKIE_AT_ENTRY(cookie))
			in->depth++;
		return 0;
	}
	ev = &in->ev;
	ev->type = HT_EV_CUSTOM_CALL;
	ev->entry = HT_CUSTOM_COOKIE_ENTRY(cookie);
	ev->pid = id >> 32;
	ev->tid = tid;
	ev->args[0] = PT_REGS_PARM1(ctx);
	ev->args[1] = PT_REGS_PARM2(ctx);
	ev->args[2] = PT_REGS_PARM3(ctx);
	ev->args[3] = PT_REGS_PARM4(ctx);
	ev->args[4] = PT_REGS_PARM5(ctx);
	ev->args[5] = ctx->r9;
	ev->ret = 0;
	ev->out_ptr = 0;
	ev->flags = 0;
	in->out_arg = HT_CUSTOM_COOKIE_OUT_ARG(cookie);
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	ev->stack.pid = ev->pid;
	/*
	 * The thread's malloc-family record also keeps its API call's return slot (there the
	 * malloc family's entry finds it). NULL without memory: then a stack through a probed
	 * call in flight is cut.
	 */
	thread = current_inflight(true);
	ev->stack.nr = unwind_user_stack(ctx, HT_COOKIE_SKIP(cookie), ev->pid,
					 thread ? &thread->call : NULL, ev->stack.frames, &ev->flags);
	ev->stack_id = stack_id_of(&ev->stack, &fresh);
	if (fresh)
		ev->flags |= HT_F_STACK_NEW;
	if (HT_CUSTOM_COOKIE_AT_ENTRY(cookie)) {
		send_custom(ev);
		return 0;
	}
	in->depth = 1;
	/* Looked up again: a pointer kept across the walk would double the verifier's work. */
	thread = current_inflight(false);
	if (thread)
		return_slot__note(&thread->api, PT_REGS_SP(ctx), &ev->stack);
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(custom_return)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct custom_inflight *in;
	struct ht_custom_event *ev;
	struct inflight *thread;
	__u32 out_index;

	if (tracing_stopped)
		return 0;
	in = bpf_map_lookup_elem(&custom_inflight, &tid);
	if (!in || in->depth == 0)
		return 0; /* its entry was lost, and counted there */
	if (--in->depth > 0)
		return 0;
	thread = current_inflight(false);
	if (thread)
		thread->api.addr = 0; /* returned: its slot holds other frames from now on */
	ev = &in->ev;
	ev->ret = PT_REGS_RC(ctx);
	/*
	 * A block handed out through an argument (out_arg 0 wraps past the bound): read it
	 * now that the call has written it, if it succeeded (an int 0).
	 */
	out_index = in->out_arg - 1;
	if (out_index < HT_CUSTOM_ARGS && (int)ev->ret == 0) {
		__u64 out = 0;

		/* Constant indexes: the verifier bounds them, not a computed one. */
		for (int i = 0; i < HT_CUSTOM_ARGS; i++) {
			if (i == out_index)
				out = ev->args[i];
		}
		if (bpf_probe_read_user(&ev->out_ptr, sizeof(ev->out_ptr), (void *)out))
			ev->flags |= HT_F_READ_FAILED;
	}
	send_custom(ev);
	return 0;
}
