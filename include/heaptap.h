/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The ABI between heaptap's BPF programs and its userspace: event layouts and constants.
 * Shared by both sides, so it includes nothing (vmlinux.h clashes with system headers);
 * the includer provides __u64/__u32/__s64.
 */
#ifndef HEAPTAP_H
#define HEAPTAP_H

/* The malloc family. The order is the order of the report's call counts. */
enum ht_func {
	HT_MALLOC,
	HT_CALLOC,
	HT_REALLOC,
	HT_REALLOCARRAY,
	HT_FREE,
	HT_MEMALIGN,
	HT_POSIX_MEMALIGN,
	HT_ALIGNED_ALLOC,
	HT_VALLOC,
	HT_PVALLOC,
	HT_NR_FUNCS,
};

/*
 * An allocator probe's attach cookie: its entry point (enum ht_func) in the low 16 bits,
 * HT_COOKIE_MIMALLOC above them, and in the high 32 how many bytes past the function's
 * first instruction the probe sits (user/trace/probe_site.h). The unwinder starts from the
 * entry, as if probed there.
 */
#define HT_COOKIE(func, skip) ((__u64)(skip) << 32 | (__u32)(func))
#define HT_COOKIE_FUNC(cookie) ((__u32)(cookie)&0xffff)
#define HT_COOKIE_SKIP(cookie) ((__u32)((cookie) >> 32))
/* The allocator is mimalloc 2.0, whose pages heaptap reads (HT_F_USABLE_FROM_PAGE). */
#define HT_COOKIE_MIMALLOC (1u << 16)

/*
 * mimalloc 2.0's layout (Debian 12's 2.0.9, a release build): segments of 32 MiB, aligned
 * to their size, start with a header whose slice table has an entry (a mi_page_t) per 64
 * KiB slice; a slice inside a page points back to the page's entry (slice_offset, bytes).
 * A page's blocks of xblock_size bytes start at its first slice, 384 bytes in for blocks
 * of 8 to 1024 bytes; a huge page's one block is the whole page.
 */
#define HT_MI_SEGMENT_SIZE (32ull << 20)
#define HT_MI_SLICE_SIZE (64ull << 10)
#define HT_MI_SLICES_OFFSET 264	    /* offsetof(mi_segment_t, slices) */
#define HT_MI_SLICE_ENTRY_SIZE 80   /* sizeof(mi_slice_t), a mi_page_t */
#define HT_MI_SLICE_COUNT_OFFSET 0  /* offsetof(mi_page_t, slice_count), __u32 */
#define HT_MI_SLICE_OFFSET_OFFSET 4 /* offsetof(mi_page_t, slice_offset), __u32 */
#define HT_MI_XBLOCK_SIZE_OFFSET 28 /* offsetof(mi_page_t, xblock_size), __u32 */
#define HT_MI_HUGE_BLOCK_SIZE (2ull << 30)
#define HT_MI_SMALL_START_OFFSET 384 /* 3 * MI_MAX_ALIGN_GUARANTEE */

/* Frames kept per call: deep enough for MPI stacks, small enough for the ring buffer. */
#define HT_MAX_FRAMES 127
#define HT_COMM_LEN 16

enum ht_event_type {
	HT_EV_CALL = 1,		/* one completed malloc-family call */
	HT_EV_LIBS_CHANGED = 2, /* the dynamic loader mapped or unmapped objects */
	HT_EV_EXIT = 3,		/* a traced thread exited */
	HT_EV_EXEC = 4,		/* a traced process started a new program (ht_libs_event) */
	HT_EV_FORK = 5,		/* a traced process started another (with --follow) */
	HT_EV_LAUNCHER = 6,	/* an MPI launcher started (ht_fork_event, parent 0) */
	HT_EV_OS_CALL = 7,	/* one mapping system call completed (ht_os_event) */
	HT_EV_OOM = 8,		/* the OOM killer chose a traced process (ht_oom_event) */
};

/* ht_call_event.flags */
#define HT_F_READ_FAILED (1u << 0)  /* a chunk header or posix_memalign out-pointer was unreadable */
#define HT_F_STACK_TRUNC (1u << 1)  /* the walk hit HT_MAX_FRAMES */
#define HT_F_STACK_UNSUPPORTED (1u << 2) /* a frame's unwind rule could not be followed */
#define HT_F_STACK_NEW (1u << 3) /* stack_id was just given: the frames follow too */
/*
 * alloc_usable is the allocator's own usable size of the block returned, read from its
 * page (mimalloc's aligned blocks: HT_COOKIE_MIMALLOC), not a glibc chunk header.
 */
#define HT_F_USABLE_FROM_PAGE (1u << 4)
/* --sample-bytes: the block the call returns was drawn (sampled); weigh it by 1/p. */
#define HT_F_SAMPLED (1u << 5)
/* --sample-bytes: the block the call releases (realloc) was a sampled one. */
#define HT_F_OLD_SAMPLED (1u << 6)

/*
 * --sample-bytes R: a call is drawn with the probability p(s) = 1 - exp(-s/R) of the bytes
 * s it asks for, p looked up by size bucket (BPF has no floating point): a table of
 * 2^32 * p, one entry per bucket, that userspace fills before load and weighs with.
 * Both sides compute the bucket from the same size with the functions below, so the weight
 * 1/p is the exact inverse of the probability the call was drawn with, whatever size
 * stands for the bucket: the estimates are unbiased. The buckets are 4 per power of two
 * (p varies by at most 25% within one), 64 powers.
 */
#define HT_SAMPLE_BUCKETS 256

/*
 * A sampled block still allocated, as the BPF side keeps it (bpf/sampling.bpf.h), and the
 * slot of the counting filter in front of that map that its address counts in.
 */
struct ht_sampled_key {
	__u32 pid;
	__u32 pad;
	__u64 ptr;
};

#define HT_SAMPLE_FILTER_SLOTS (1u << 18)

static inline __u32 ht_sample_filter_slot(__u64 ptr)
{
	return (__u32)((ptr >> 4) * 0x9e3779b97f4a7c15ull >> 46) & (HT_SAMPLE_FILTER_SLOTS - 1);
}
#define HT_SAMPLE_ALWAYS (1ull << 32) /* a threshold no 32-bit draw reaches: p = 1 */

/* The bytes a call is drawn by: what it asks for (calloc, reallocarray: n * m). */
static inline __u64 ht_sample_size(__u32 func, __u64 a0, __u64 a1, __u64 a2)
{
	switch (func) {
	case HT_CALLOC:
		return a0 * a1;
	case HT_REALLOC:
		return a1;
	case HT_REALLOCARRAY:
		return a1 * a2;
	case HT_MEMALIGN:
	case HT_ALIGNED_ALLOC:
		return a1;
	case HT_POSIX_MEMALIGN:
		return a2;
	default:
		return a0; /* malloc, valloc, pvalloc */
	}
}

/* Bucket of a size: 4 * floor(log2 size) + its next two bits (sizes 0..3: buckets 0..3). */
static inline __u32 ht_sample_bucket(__u64 bytes)
{
	__u64 size = bytes;
	__u32 msb = 0;

	if (size < 4)
		return (__u32)size;
	if (size >> 32) {
		size >>= 32;
		msb += 32;
	}
	if (size >> 16) {
		size >>= 16;
		msb += 16;
	}
	if (size >> 8) {
		size >>= 8;
		msb += 8;
	}
	if (size >> 4) {
		size >>= 4;
		msb += 4;
	}
	if (size >> 2) {
		size >>= 2;
		msb += 2;
	}
	if (size >> 1) {
		size >>= 1;
		msb += 1;
	}
	return msb * 4 + (__u32)((bytes >> (msb - 2)) & 3);
}

/* A user stack: frames[0] the probed entry point, [1] its caller, outwards. */
struct ht_stack {
	__u32 pid; /* addresses mean something only in their process */
	__u32 nr;
	__u64 frames[HT_MAX_FRAMES];
};

/*
 * Frames a stack in the stacks map may have: deeper ones travel inline. An Open MPI rank's
 * MPI_Init stacks are ~25 frames deep, and a map entry sized for 127 (1 KiB) held a node's
 * sixteen ranks' stacks only up to eleven ranks (DESIGN.md, the node's burst).
 */
#define HT_STORED_FRAMES 48

/*
 * A stack the node's processes share: each frame kept as its file and offset, not its
 * address, so that every process running the same code from the same files (a node's MPI
 * ranks) meets one id, stored and named once. Its stored pid is 0 and its id has
 * HT_STACK_ID_SHARED; a stack with a frame outside any file (JIT code, [vdso]) stays its
 * process's, with its addresses. A frame's key: file_id << HT_FRAME_OFFSET_BITS | offset.
 */
#define HT_STACK_ID_SHARED (1ULL << 63)
#define HT_FRAME_OFFSET_BITS 40
#define HT_MAX_FILE_ID ((1u << 24) - 1)

static inline __u64 ht_frame_key(__u32 file_id, __u64 offset)
{
	return (__u64)file_id << HT_FRAME_OFFSET_BITS | offset;
}

/* A stack as the stacks map keeps it: struct ht_stack's first part. */
struct ht_stored_stack {
	__u32 pid;
	__u32 nr; /* <= HT_STORED_FRAMES */
	__u64 frames[HT_STORED_FRAMES];
};

/*
 * One malloc-family call, sent when the outermost call returns (free: at its entry).
 * Raw arguments travel as they are; userspace derives requested bytes from them.
 * The stack travels as an id in the stacks map (pid -> never reused while traced). Its
 * nr frames follow inline when it could not be stored (stack_id 0) and, with
 * HT_F_STACK_NEW, in the first event of a new id.
 */
struct ht_call_event {
	__u32 type;
	__u32 func;	     /* enum ht_func of the probed address (aliases resolved later) */
	__u32 pid;	     /* thread group id */
	__u32 tid;
	__u64 args[3];	     /* rdi, rsi, rdx at entry */
	__u64 ret;	     /* rax at return (free: 0) */
	__u64 freed_usable;  /* usable bytes of the block released (free, realloc) */
	__u64 alloc_usable;  /* usable bytes of the block returned */
	__u64 alloc_ptr;     /* the block returned (posix_memalign: through args[0]) */
	__u32 flags;
	__u32 pad;
	__u64 stack_id;	     /* key in the stacks map; 0: the stack is inline */
	__u64 time_ns;	     /* CLOCK_MONOTONIC as it was sent: a free's entry, else its return */
	char comm[HT_COMM_LEN];
	struct ht_stack stack; /* sent only with stack_id 0 or HT_F_STACK_NEW */
};

#define HT_CALL_EVENT_HEADER_SIZE 112
#define HT_STACK_HEADER_SIZE 8

/* Do the event's stack frames follow its header? */
static inline int ht_call_carries_frames(const struct ht_call_event *ev)
{
	return !ev->stack_id || (ev->flags & HT_F_STACK_NEW);
}

/* The system calls of the OS view (ht_os_event.call), in the report's order. */
enum ht_os_call {
	HT_OS_MMAP,
	HT_OS_MUNMAP,
	HT_OS_MREMAP,
	HT_OS_BRK,
	HT_OS_MADVISE, /* only MADV_DONTNEED and MADV_FREE are sent */
	HT_NR_OS_CALLS,
};

/*
 * ht_os_event.flags, beside the HT_F_STACK_* bits. A call made inside a malloc-family call
 * is the allocator's own: it carries the stack of that call (alloc_func), so that it is
 * charged where the malloc is (and no unwinding through uretprobe trampolines is needed).
 */
#define HT_F_IN_ALLOCATOR (1u << 8)

/*
 * One mapping system call of a traced thread, sent at its exit. args are the call's
 * arguments as the kernel read them (rdi, rsi, rdx, r10, r8); ret its return value; brk
 * also carries the break before the call. The stack is as in ht_call_event: frames[0] is
 * the pc after the syscall instruction (inside the libc wrapper, not a function's entry),
 * or with HT_F_IN_ALLOCATOR the allocator call's stack (a stack id the stacks map holds).
 */
struct ht_os_event {
	__u32 type;
	__u32 call;	     /* enum ht_os_call */
	__u32 pid;
	__u32 tid;
	__u64 args[5];
	__u64 ret;
	__u64 old_brk;
	__u32 flags;
	__u32 alloc_func; /* with HT_F_IN_ALLOCATOR: the malloc-family call (enum ht_func) */
	__u64 stack_id;
	char comm[HT_COMM_LEN];
	struct ht_stack stack; /* sent only with stack_id 0 or HT_F_STACK_NEW */
};

#define HT_OS_EVENT_HEADER_SIZE 104

struct ht_libs_event {
	__u32 type;
	__u32 pid;
	__u32 tid;
	__u32 held; /* the process was stopped so probes can be placed before it runs on */
	__u32 same_code; /* a loader event after which it maps no more code than before */
	__u32 uid;	  /* the process's real uid (at an exec: the new program's) */
	__u64 hold_since; /* with held: the stop's ht_hold.since_ns, which names this stop */
};

struct ht_fork_event {
	__u32 type;
	__u32 pid;    /* the new process */
	__u32 parent; /* the traced process that forked it */
	__u32 uid;    /* the new process's real uid */
};

struct ht_exit_event {
	__u32 type;
	__u32 pid;
	__u32 tid;
	__u32 group_dead; /* the last thread of the process */
	__u32 exit_code;  /* with group_dead: the process's wait status (as waitpid's) */
	__u32 calls_known; /* --sample-bytes: calls holds the thread's calls, exactly */
	/*
	 * With group_dead: resident pages as the last thread began to exit (VmRSS), and the
	 * most ever resident (VmHWM); 0 when not read.
	 */
	__u64 rss_pages, rss_peak_pages;
	__u64 time_ns; /* CLOCK_MONOTONIC of the exit */
	__u64 calls[HT_NR_FUNCS]; /* with calls_known: the thread's calls of each function */
	char comm[16];		  /* the thread's name */
};

/*
 * --sample-bytes: a thread's calls, counted exactly though few are traced
 * (bpf/thread_calls.bpf.h): as kept per thread, and as counted on a CPU since it last
 * switched tasks, with the task it switched to (whose the counts are).
 */
struct ht_thread_calls {
	__u64 calls[HT_NR_FUNCS];
};

struct ht_cpu_calls {
	__u64 calls[HT_NR_FUNCS];
	__u32 pid, tid;
};

/*
 * The OOM killer chose a traced process (tracepoint oom:mark_victim), before the kill is
 * delivered: its calls up to now are ahead of this event in the stream.
 */
struct ht_oom_event {
	__u32 type;
	__u32 pid;
	__u64 time_ns; /* CLOCK_MONOTONIC of the choice */
	/*
	 * Its memory cgroup then, read from the kernel (memcg_known 0: none could be read):
	 * the cgroup directory's inode (kernfs id), and its page counter in pages.
	 */
	__u64 cgroup_ino;
	__u64 usage_pages, max_pages, watermark_pages;
	__u32 memcg_known;
	__u32 pad;
};

/*
 * Holds. heaptap stops a process (SIGSTOP from BPF, at exec and loader events) so that its
 * probes and unwind tables are in place before it runs on. Every stop is recorded in the
 * map `held` (pid -> ht_hold) before it is sent, and whoever deletes that entry, heaptap
 * or its guardian process, sends the SIGCONT: exactly once.
 */
struct ht_hold {
	__u64 since_ns;	      /* CLOCK_MONOTONIC when it was stopped */
	__u64 start_boottime; /* the process's start (ns since boot), told apart from a later
			       * process with the same pid */
};

/*
 * In the map `hold` (pid -> pages of code seen, this flag or'ed in): stop it at its exec
 * and loader events even if it is an MPI launcher. Launchers are not stopped: they relay
 * SIGCONT to their ranks, and a shell watching one would see it stop. The command `run`
 * starts is heaptap's own child, stopped before its code runs and let go once probed: its
 * first calls are not missed however long heaptap takes to place its probes.
 */
#define HT_HOLD_EVEN_LAUNCHER (1u << 31)

/* One entry (array map `hold_control`), written by heaptap and its guardian. */
struct ht_hold_control {
	__u64 heartbeat_ns; /* CLOCK_MONOTONIC when heaptap last read its events */
	__u64 bound_ns;	    /* no hold lasts longer; none starts when heaptap has not read
			     * its events for half as long */
	__u32 disabled;	    /* heaptap or its guardian is gone: never stop anyone again */
	__u32 pad;
};

/*
 * Unwind tables. A row says, from file offset pc until the next row, where the CFA (the
 * caller's stack pointer) is and where the caller's rbp and return address were saved.
 * Rows of every file live in one array map; a file's rows are sorted and contiguous,
 * shared by every process that maps the file.
 */
enum ht_cfa_rule {
	HT_CFA_NONE,	    /* no unwind information covers this pc */
	HT_CFA_RSP,	    /* CFA = rsp + cfa_offset */
	HT_CFA_RBP,	    /* CFA = rbp + cfa_offset */
	HT_CFA_PLT,	    /* a PLT stub: CFA = rsp + 8, + 8 more when (pc & 15) >= 11 */
	HT_CFA_SIGNAL,	    /* a signal trampoline: rsp is at a ucontext_t, which holds the
			     * interrupted rip, rsp and rbp */
	HT_CFA_UNSUPPORTED, /* an expression heaptap cannot follow: the stack ends, incomplete */
};

enum ht_reg_rule {
	HT_REG_SAME,	    /* the caller's value is still in the register */
	HT_REG_AT_CFA,	    /* saved at CFA + offset */
	HT_REG_UNDEFINED,   /* no caller: the outermost frame (for the return address) */
	HT_REG_UNSUPPORTED, /* anything else */
};

struct ht_unwind_row {
	__u32 pc;	   /* file offset where the row starts */
	__s32 cfa_offset;
	__s16 rbp_offset;  /* with rbp_rule HT_REG_AT_CFA */
	__s16 ra_offset;   /* with ra_rule HT_REG_AT_CFA (-8 on x86-64) */
	__u8 cfa_rule;	   /* enum ht_cfa_rule */
	__u8 rbp_rule;	   /* enum ht_reg_rule */
	__u8 ra_rule;	   /* enum ht_reg_rule */
	__u8 pad;
};

/* Executable mappings a process can have tables for; more are walked by frame pointers. */
#define HT_MAX_MAPPINGS 512

/*
 * A file's page index, so that finding a pc's row takes a few steps, not a search of all
 * the file's rows: for page p (file offsets from (first_page + p) << page_shift), how many
 * of the file's rows start at or before the page's first byte. The row of an offset in
 * page p then lies between index[p] - 1 and index[p + 1] - 1. The words follow the file's
 * rows in the row map, HT_INDEX_WORDS to a row slot; nr_pages + 1 of them (the last is
 * nr_rows). Userspace picks page_shift so that the index takes at most an eighth of the
 * rows' bytes.
 */
#define HT_INDEX_WORDS 4

struct ht_unwind_index {
	__u32 rows_before[HT_INDEX_WORDS];
};

struct ht_mapping {
	__u64 start, end;  /* [start, end) of an executable mapping */
	__u64 file_offset; /* of start */
	__u32 first_row;   /* the file's rows in the row map */
	__u32 nr_rows;	   /* 0: no table; frame pointers are walked instead */
	__u32 first_index; /* its page index: the row slot of word 0 */
	__u32 nr_pages;	   /* 0: no index; the whole file's rows are searched */
	__u32 first_page;  /* file offset >> page_shift of index word 0 */
	__u32 page_shift;
	__u32 file_id;	   /* the file's number on the node (ht_frame_key), 0: none */
	__u32 pad;
};

/* A process's executable mappings with tables, sorted by start (map keyed by pid). */
struct ht_process_mappings {
	__u32 nr;
	__u32 pad;
	struct ht_mapping maps[HT_MAX_MAPPINGS];
};

/*
 * Events go to one of several rings (shards), each drained by its own consumer thread: a
 * process's events always to the same ring, so that their order is kept. The shard of a
 * process is its pid modulo the number of rings; BPF and userspace compute it alike.
 * HT_MAX_SHARDS bounds the rings (the BPF array of them).
 */
#define HT_MAX_SHARDS 64

static inline __u32 ht_shard_of(__u32 pid, __u32 nr_shards)
{
	/*
	 * The pid itself: the ranks a launcher starts in a row have consecutive pids, and so
	 * take the rings in turn, an even share in each. A hash that scatters them left 10 of
	 * 16 ranks in one of two rings, which overflowed while the other was half empty.
	 */
	return nr_shards > 1 ? pid % nr_shards : 0;
}

/* Per-process losses, kept in the BPF map `losses` keyed by pid. */
struct ht_losses {
	__u64 ringbuf_full;
	__u64 inflight_full;
	__u64 holds_skipped; /* not stopped (heaptap slow or gone): stacks may be cut */
};

/*
 * Allocator APIs beyond the malloc family (--allocator): one call of a described entry
 * point, sent when its outermost invocation returns (a free-like one: at its entry). A
 * per-thread depth of its own keeps the API's inner calls to itself silent, not the
 * malloc family's calls it makes (a pool on top of malloc shows in both).
 */
#define HT_EV_CUSTOM_CALL 16
#define HT_CUSTOM_ARGS 6

/*
 * Its probes' cookie: the entry point (userspace's index) in bits 0-15, the argument
 * (1-based, 0: none) through which it hands out its block (posix_memalign-like) in bits
 * 16-19, bit 20 when it reports at its entry; the probe's distance past the entry above.
 */
#define HT_CUSTOM_COOKIE(entry, out_arg, at_entry, skip)                                     \
	((__u64)(skip) << 32 | (__u32)(at_entry) << 20 | (__u32)(out_arg) << 16 | (__u32)(entry))
#define HT_CUSTOM_COOKIE_ENTRY(cookie) ((__u32)(cookie)&0xffff)
#define HT_CUSTOM_COOKIE_OUT_ARG(cookie) (((__u32)(cookie) >> 16) & 0xf)
#define HT_CUSTOM_COOKIE_AT_ENTRY(cookie) (((__u32)(cookie) >> 20) & 1)

struct ht_custom_event {
	__u32 type;		    /* HT_EV_CUSTOM_CALL */
	__u32 entry;		    /* HT_CUSTOM_COOKIE_ENTRY of its probe */
	__u32 pid;
	__u32 tid;
	__u64 args[HT_CUSTOM_ARGS]; /* at entry */
	__u64 ret;		    /* at return (at-entry kinds: 0) */
	__u64 out_ptr;		    /* *args[out_arg - 1] at return, when it has one */
	__u32 flags;		    /* HT_F_* */
	__u32 pad;
	__u64 stack_id;
	char comm[HT_COMM_LEN];
	struct ht_stack stack; /* as in ht_call_event */
};

#define HT_CUSTOM_EVENT_HEADER_SIZE 112

#endif /* HEAPTAP_H */
