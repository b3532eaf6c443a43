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
#include "sampling.bpf.h"
#include "thread_calls.bpf.h"

/*
 * Set by userspace when tracing ends: removing the probes takes a while, and what they
 * would report then is past the end of the run.
 */
bool tracing_stopped;

/*
 * Sampled mode: the calls in flight whose returns are awaited (a sampled call, an unsampled
 * realloc), over all threads. While there are none, and nearly always there are none, an
 * unsampled call is not inside one of glibc's own (realloc(NULL, n) calling malloc), so it
 * is counted without looking up its thread's record (two helper calls, each costing more
 * than the rest of such a program); without session uprobes, it has no depth to step and
 * every return program exits at once. A thread that dies inside such a call leaves it
 * counted: calls then take the longer way, as they did before.
 */
__u64 sampled_in_flight;

/* Sampled mode: is the current thread inside a call in flight (glibc calling itself)? */
static __always_inline struct inflight *inside_call(void)
{
	struct inflight *in;

	if (!sampled_in_flight || !(in = current_inflight(false)) || in->depth == 0)
		return NULL;
	return in;
}

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

/*
 * mimalloc 2.0: the usable size of a block as mi_usable_size() computes it, from its
 * page's entry in its segment's slice table (include/heaptap.h: HT_MI_*). An aligned block
 * sits inside a larger block at an offset its address decides: what is usable is the rest
 * of that block. 0 when what is read does not hold together (then userspace counts the
 * block's size as unknown).
 */
static __always_inline __u64 mimalloc_usable(__u64 ptr)
{
	__u64 segment = (ptr - 1) & ~(HT_MI_SEGMENT_SIZE - 1), slices, slice, page;
	__u64 index, start, bsize, offset;
	__u32 back = 0, count = 0, xblock = 0;

	slices = segment + HT_MI_SLICES_OFFSET;
	index = (ptr - segment) / HT_MI_SLICE_SIZE;
	slice = slices + index * HT_MI_SLICE_ENTRY_SIZE;
	if (bpf_probe_read_user(&back, sizeof(back), (void *)(slice + HT_MI_SLICE_OFFSET_OFFSET)))
		return 0;
	if (back > index * HT_MI_SLICE_ENTRY_SIZE || back % HT_MI_SLICE_ENTRY_SIZE)
		return 0;
	page = slice - back;
	if (bpf_probe_read_user(&count, sizeof(count),
				(void *)(page + HT_MI_SLICE_COUNT_OFFSET)) ||
	    bpf_probe_read_user(&xblock, sizeof(xblock),
				(void *)(page + HT_MI_XBLOCK_SIZE_OFFSET)) ||
	    !count || !xblock)
		return 0;
	offset = xblock >= 8 && xblock <= 1024 ? HT_MI_SMALL_START_OFFSET : 0;
	start = segment + (page - slices) / HT_MI_SLICE_ENTRY_SIZE * HT_MI_SLICE_SIZE + offset;
	bsize = xblock < HT_MI_HUGE_BLOCK_SIZE ? xblock : count * HT_MI_SLICE_SIZE - offset;
	if (ptr < start || !bsize)
		return 0;
	return bsize - (ptr - start) % bsize;
}

static __always_inline void send_call(struct ht_call_event *ev)
{
	__u64 size = HT_CALL_EVENT_HEADER_SIZE;
	__u32 nr = ev->stack.nr;

	if (nr > HT_MAX_FRAMES)
		nr = HT_MAX_FRAMES;
	if (ht_call_carries_frames(ev))
		size += HT_STACK_HEADER_SIZE + nr * sizeof(__u64);
	/* The node's sum adds processes' calls in this order (user/account/node_total.h). */
	ev->time_ns = bpf_ktime_get_ns();
	send_batched(ev->pid, ev, size);
}

/*
 * A traced call's entry (sampled: its HT_F_SAMPLED / HT_F_OLD_SAMPLED flags, 0 in exact
 * mode): true when its return must be seen.
 */
static __always_inline bool trace_entry(struct pt_regs *ctx, __u64 cookie, __u32 func,
					__u32 sampled, bool session)
{
	struct ht_call_event *ev;
	struct inflight *in;
	bool fresh = false;
	__u64 id;

	id = bpf_get_current_pid_tgid();
	in = current_inflight(true);
	if (!in) {
		count_loss(id >> 32, LOSS_INFLIGHT_FULL);
		return false;
	}
	if (in->depth > 0) {
		/* glibc calling itself; free has no return probe to undo a depth step. */
		if (func != HT_FREE && !session)
			in->depth++;
		return false;
	}
	/* Sampled mode: the outermost calls are counted, the way exact mode reports them. */
	if (sample_bytes)
		thread_calls__count(func);
	if (sample_bytes && func != HT_FREE)
		__sync_fetch_and_add(&sampled_in_flight, 1);
	if (sample_bytes && !sampled) {
		/*
		 * An unsampled realloc: glibc's realloc(NULL, n) calls malloc, reallocarray
		 * calls realloc. Their own draws would trace those blocks twice as often as
		 * weighed: the call stays in flight, untraced, to keep its inner calls silent.
		 */
		in->depth = 1;
		in->untraced = 1;
		return true;
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
	/*
	 * An aligned block of an allocator whose pages can be read: its size is read at the
	 * return. The other entry points' blocks have sizes their classes tell.
	 */
	ev->flags = (cookie & HT_COOKIE_MIMALLOC) && func >= HT_MEMALIGN ? HT_F_USABLE_FROM_PAGE
									 : 0;
	ev->flags |= sampled;
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
			  &ev->flags, &fresh, &in->stack_cache, &in->stack_key);
	if (fresh)
		ev->flags |= HT_F_STACK_NEW;

	if (func == HT_FREE) {
		send_call(ev);
		return false;
	}
	in->depth = 1;
	return_slot__note(&in->call, PT_REGS_SP(ctx), &ev->stack);
	return true;
}

/*
 * A call's entry: true when its return must be seen. With session (a session uprobe) an
 * entry that needs no return says so and the kernel skips the return's trap; without, the
 * return program runs and exits at once (its thread's depth is 0).
 */
static __always_inline bool enter(struct pt_regs *ctx, bool session)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u32 func = HT_COOKIE_FUNC(cookie);
	struct inflight *in;
	__u32 sampled = 0;

	if (tracing_stopped)
		return false;
	if (sample_bytes) {
		/* The draw first: an unsampled call goes no further than this. */
		sampled = sample__enter(func, PT_REGS_PARM1(ctx), PT_REGS_PARM2(ctx),
					PT_REGS_PARM3(ctx));
		/*
		 * Not traced. Inside a traced call (glibc calling itself), its return probe
		 * still runs without sessions: the depth must count it.
		 */
		if (!sampled && func != HT_REALLOC && func != HT_REALLOCARRAY) {
			if ((in = inside_call())) {
				/* glibc calling itself: not a call of the program's */
				if (!session && func != HT_FREE)
					in->depth++;
				return false;
			}
			thread_calls__count(func);
			return false;
		}
	}
	return trace_entry(ctx, cookie, func, sampled, session);
}

static __always_inline void leave(struct pt_regs *ctx, bool session)
{
	struct ht_call_event *ev;
	struct inflight *in;
	__u64 ptr;

	if (tracing_stopped || (sample_bytes && !session && !sampled_in_flight))
		return;
	in = current_inflight(false);
	if (!in || in->depth == 0)
		return; /* its entry was lost, and counted there; or it was not sampled */
	if (--in->depth > 0)
		return;
	if (sample_bytes)
		__sync_fetch_and_add(&sampled_in_flight, -1);
	if (in->untraced) {
		in->untraced = 0;
		return;
	}
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
	if (ev->flags & HT_F_USABLE_FROM_PAGE) {
		ev->alloc_usable = ptr ? mimalloc_usable(ptr) : 0;
		if (!ev->alloc_usable)
			ev->flags &= ~HT_F_USABLE_FROM_PAGE;
	} else {
		ev->alloc_usable = usable_size(ptr, &ev->flags);
	}
	if (sample_bytes)
		sample__exit(ev, ptr);
	send_call(ev);
}

SEC("uprobe")
int BPF_KPROBE(alloc_entry)
{
	enter(ctx, false);
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(alloc_return)
{
	leave(ctx, false);
	return 0;
}

/*
 * Session uprobes (BPF_TRACE_UPROBE_SESSION, Linux 6.13): one program at the entry and the
 * return; an entry that returns non-zero has its return skipped. Loaded only where the
 * kernel has them (user/trace/sampling.c); libbpf 1.1 knows no "uprobe.session" section,
 * so the attach type is set by hand, as for uprobe_multi.
 */
extern bool bpf_session_is_return(void) __ksym __weak;

SEC("uprobe")
int BPF_KPROBE(alloc_session)
{
	if (bpf_session_is_return()) {
		leave(ctx, true);
		return 0;
	}
	return enter(ctx, true) ? 0 : 1;
}

/*
 * free in sampled mode with session uprobes: its own program on its own link (free has no
 * return to skip), so that the release of an unsampled block, nearly every one, costs one
 * load of the filter, its count, and no helper call; the function it sits on needs no
 * cookie to tell.
 */
SEC("uprobe")
int BPF_KPROBE(sampled_free)
{
	if (tracing_stopped)
		return 0;
	if (!sample__released(PT_REGS_PARM1(ctx))) {
		if (!inside_call())
			thread_calls__count(HT_FREE);
		return 0;
	}
	trace_entry(ctx, bpf_get_attach_cookie(ctx), HT_FREE, HT_F_OLD_SAMPLED, true);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
