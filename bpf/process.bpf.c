// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The life of a traced process: objects the dynamic loader maps, and thread exits.
 */
#include "heaptap.bpf.h"
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "inflight.bpf.h"
#include "thread_calls.bpf.h"

#define SIGSTOP 19
#define SIGNAL_GROUP_EXIT 0x4 /* signal_struct.flags: the group is exiting as one */

/*
 * Processes to stop at their exec and loader events (pid -> pages of code it mapped at its
 * last loader event), so that userspace can place the allocator probes and unwind tables
 * before the new code runs.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} hold SEC(".maps") __weak;

/* Processes stopped now (pid -> when): see struct ht_hold. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ht_hold);
} held SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ht_hold_control);
} hold_control SEC(".maps");

/*
 * Held loader events once more, ahead of the ordered stream: userspace places tables and
 * probes and lets the process run on at once, not after the calls queued before the event
 * (thousands, at an MPI rank's start, each a stack to name). Full, the ordered event does it.
 * One per shard, read by the consumer that owns the process (before each of its events).
 */
struct hold_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 10);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, HT_MAX_SHARDS);
	__type(key, __u32);
	__array(values, struct hold_ring);
} hold_rings SEC(".maps");

/* Follow the processes traced processes start (run --follow). */
const volatile bool follow_children;

/*
 * Program names of MPI launchers (comm -> unused). A launcher is never stopped: it relays
 * the SIGCONT that would end the stop to its whole job. With follow_launchers (--mpi
 * without a command) a launcher that starts is followed, so its ranks are held at exec.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, char[TASK_COMM_LEN]);
	__type(value, __u8);
} launchers SEC(".maps");

bool follow_launchers;

/*
 * For a user who may trace only their own processes (see user/host/privilege.h): their real
 * uid and gid, else (u32)-1. Another user's launcher is not followed, and a process whose
 * exec gave it other ids (setuid, setgid) is not stopped.
 */
__u32 own_uid = -1, own_gid = -1;

static __always_inline bool runs_as_own_user(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (own_uid == (__u32)-1)
		return true;
	return BPF_CORE_READ(task, real_cred, uid.val) == own_uid &&
	       BPF_CORE_READ(task, real_cred, euid.val) == own_uid &&
	       BPF_CORE_READ(task, real_cred, suid.val) == own_uid &&
	       BPF_CORE_READ(task, real_cred, gid.val) == own_gid &&
	       BPF_CORE_READ(task, real_cred, egid.val) == own_gid &&
	       BPF_CORE_READ(task, real_cred, sgid.val) == own_gid;
}

/*
 * A process's real uid, for the record of who ran it: taken here because a short-lived
 * process is gone before userspace could read /proc. The kernel's value (the initial user
 * namespace's), as root's /proc shows it.
 */
static __always_inline __u32 real_uid(struct task_struct *task)
{
	return BPF_CORE_READ(task, real_cred, uid.val);
}

/*
 * Stop the current process if it is to be held and heaptap is there to let it go: it must
 * have read its events lately (a stalled heaptap would leave the stop to its guardian's
 * bound). The stop is recorded before it is sent, so the guardian always sees it.
 */
static __always_inline bool hold_current(__u32 pid, __u32 type, __u32 *same_code,
					 __u64 *since)
{
	struct task_struct *task = bpf_get_current_task_btf();
	char comm[TASK_COMM_LEN] = {};
	struct ht_hold_control *ctl;
	struct ht_hold h = {};
	__u32 zero = 0, *code_seen, code, seen, even_launcher;

	code_seen = bpf_map_lookup_elem(&hold, &pid);
	if (!code_seen)
		return false;
	/*
	 * Only new code needs a table before it runs. The loader reports each change twice
	 * (announced, then done), dlclose() as well: at an event after which the process maps
	 * no more code (executable pages) than at the one before, it runs on.
	 */
	even_launcher = *code_seen & HT_HOLD_EVEN_LAUNCHER;
	seen = *code_seen & ~HT_HOLD_EVEN_LAUNCHER;
	code = BPF_CORE_READ(task, mm, exec_vm) & ~HT_HOLD_EVEN_LAUNCHER;
	if (type == HT_EV_LIBS_CHANGED && code <= seen) {
		*code_seen = code | even_launcher;
		*same_code = 1;
		return false;
	}
	*code_seen = code | even_launcher;
	bpf_get_current_comm(comm, sizeof(comm));
	if (!even_launcher && bpf_map_lookup_elem(&launchers, comm))
		return false;
	ctl = bpf_map_lookup_elem(&hold_control, &zero);
	h.since_ns = bpf_ktime_get_ns();
	/* Signed: a beat written since the clock was read is newer than the stop, not old. */
	if (!ctl || ctl->disabled ||
	    (__s64)(h.since_ns - ctl->heartbeat_ns) > (__s64)(ctl->bound_ns / 2)) {
		count_loss(pid, LOSS_HOLD_SKIPPED);
		return false;
	}
	h.start_boottime = BPF_CORE_READ(task, group_leader, start_boottime);
	if (bpf_map_update_elem(&held, &pid, &h, BPF_ANY))
		return false;
	*since = h.since_ns;
	if (bpf_send_signal(SIGSTOP) == 0)
		return true;
	bpf_map_delete_elem(&held, &pid);
	return false;
}

static __always_inline void mappings_changed(__u32 type)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ht_libs_event ev = {
		.type = type,
		.pid = id >> 32,
		.tid = (__u32)id,
		.uid = real_uid(bpf_get_current_task_btf()),
	};

	/* Stop before sending: the process must be held by the time userspace looks. */
	ev.held = hold_current(ev.pid, type, &ev.same_code, &ev.hold_since);
	/* First, so that userspace has seen it by the time it reads the ordered event. */
	if (ev.held && type == HT_EV_LIBS_CHANGED) {
		__u32 shard = ht_shard_of(ev.pid, nr_shards);
		void *ring = bpf_map_lookup_elem(&hold_rings, &shard);

		if (ring)
			bpf_ringbuf_output(ring, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP);
	}
	send_event(ev.pid, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP);
}

/*
 * On _dl_debug_state, which the loader calls after it changes the set of mapped objects
 * (the debugger interface of <link.h>).
 */
SEC("uprobe")
int BPF_KPROBE(loader_changed)
{
	mappings_changed(HT_EV_LIBS_CHANGED);
	return 0;
}

/*
 * A new program image: for a static one, the only moment its mappings can be read early.
 * tp_btf, not tracepoint: a tracepoint needs its id from tracefs, which only root reads.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(program_exec)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;
	char comm[TASK_COMM_LEN] = {};
	struct ht_fork_event ev = {
		.type = HT_EV_LAUNCHER,
		.pid = pid,
		.uid = real_uid(bpf_get_current_task_btf()),
	};
	__u8 one = 1;

	if (bpf_map_lookup_elem(&targets, &pid)) {
		/*
		 * No call of the old image will return: a depth left by one (its probes came
		 * while it ran) must not silence the new program.
		 */
		bpf_task_storage_delete(&inflight, bpf_get_current_task_btf());
		if (!runs_as_own_user())
			bpf_map_delete_elem(&hold, &pid); /* userspace lets it go untraced */
		mappings_changed(HT_EV_EXEC);
		return 0;
	}
	/* The new program's name is already in place. */
	bpf_get_current_comm(comm, sizeof(comm));
	if (!follow_launchers || !runs_as_own_user() || !bpf_map_lookup_elem(&launchers, comm) ||
	    bpf_map_update_elem(&targets, &pid, &one, BPF_NOEXIST))
		return 0;
	send_event(pid, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP);
	return 0;
}

/*
 * A traced process started another: trace it too, held at its exec, so that a program it
 * starts is probed before its first instruction. Runs in the parent.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(process_fork, struct task_struct *parent, struct task_struct *child)
{
	struct ht_fork_event ev = { .type = HT_EV_FORK };
	__u32 no_code_seen = 0;
	__u8 one = 1;

	if (!follow_children)
		return 0;
	ev.parent = BPF_CORE_READ(parent, tgid);
	ev.pid = BPF_CORE_READ(child, tgid);
	if (ev.pid == ev.parent || !bpf_map_lookup_elem(&targets, &ev.parent))
		return 0; /* a new thread, or not ours */
	ev.uid = real_uid(child); /* its own credentials are in place by now */
	if (bpf_map_update_elem(&targets, &ev.pid, &one, BPF_ANY) ||
	    bpf_map_update_elem(&hold, &ev.pid, &no_code_seen, BPF_ANY)) {
		count_loss(ev.parent, LOSS_INFLIGHT_FULL);
		return 0;
	}
	/*
	 * Into the child's ring, not the parent's: the child's own events (its exec) follow
	 * it there, in order, and its consumer owns it from here on.
	 */
	send_event(ev.pid, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP);
	return 0;
}

/* mm_struct's counters (enum mm_counters), the same since Linux 2.6.34. */
#define RSS_FILE 0
#define RSS_ANON 1
#define RSS_SHMEM 3

/* mm_struct before Linux 6.2: its counters atomics in one struct, not per-CPU counters. */
struct mm_rss_stat___pre62 {
	long count[4];
};
struct mm_struct___pre62 {
	struct mm_rss_stat___pre62 rss_stat;
};

/*
 * One of mm's counters as get_mm_counter() reads it: the shared count, never below 0.
 * Which layout is told by CO-RE (a struct where 6.2 has an array): the other branch's
 * relocations fail and are never reached.
 */
#define MM_COUNTER(mm, member)                                                               \
	({                                                                                   \
		struct mm_struct___pre62 *__old = (void *)(mm);                              \
		__s64 __n = 0;                                                               \
		if (bpf_core_field_exists(__old->rss_stat))                                  \
			bpf_core_read(&__n, sizeof(__n),                                     \
				      (void *)(mm) + bpf_core_field_offset(__old->rss_stat) + \
					      (member) * sizeof(long));                      \
		else                                                                         \
			__n = BPF_CORE_READ((mm), rss_stat[member].count);                   \
		__n > 0 ? (__u64)__n : 0;                                                    \
	})

/*
 * The process's resident set as /proc/PID/status counts it, VmRSS and VmHWM (get_mm_rss,
 * get_mm_hiwater_rss), as its last thread exits: no sampler sees it, a process shorter
 * than its interval is gone before the next sample. Since the tracepoint got its group_dead
 * argument (2025; Linux 6.12 has it not) it comes before exit_mm(), while the memory is
 * still there; before, mm is gone and both stay 0 (userspace reads VmHWM as the heap grows).
 */
static __always_inline void exit_rss(struct task_struct *task, struct ht_exit_event *ev)
{
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	__u64 hiwater;

	if (!mm)
		return;
	ev->rss_pages = MM_COUNTER(mm, RSS_FILE) + MM_COUNTER(mm, RSS_ANON) +
			MM_COUNTER(mm, RSS_SHMEM);
	hiwater = BPF_CORE_READ(mm, hiwater_rss);
	ev->rss_peak_pages = hiwater > ev->rss_pages ? hiwater : ev->rss_pages;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(thread_exit)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 id = bpf_get_current_pid_tgid();
	struct ht_thread_calls *calls;
	bool traced = false;
	struct ht_exit_event ev = {
		.type = HT_EV_EXIT,
		.pid = id >> 32,
		.tid = (__u32)id,
		.time_ns = bpf_ktime_get_ns(),
	};

	/*
	 * --sample-bytes: the thread's calls, exactly, those made since its last switch
	 * included (this CPU's, preemption being off); its entry goes with it. Looked up
	 * before the process: threads of an exit_group leave on several CPUs at once, and the
	 * last to count itself out may have forgotten the process before another's exit runs
	 * here. Such a thread's event carries its calls only.
	 */
	thread_calls__flush(ev.pid, ev.tid);
	calls = bpf_map_lookup_elem(&thread_calls, &id);
	if (bpf_map_lookup_elem(&targets, &ev.pid))
		traced = true;
	barrier_var(traced); /* two pointers tested at once: the verifier refuses their OR */
	if (!traced && !calls)
		return 0;
	bpf_get_current_comm(ev.comm, sizeof(ev.comm));
	if (calls) {
		__u64 key = id;

		__builtin_memcpy(ev.calls, calls->calls, sizeof(ev.calls));
		ev.calls_known = 1;
		bpf_map_delete_elem(&thread_calls, &key);
	}
	/* do_exit() has already counted this thread out of the group's live threads. */
	ev.group_dead = traced && BPF_CORE_READ(task, signal, live.counter) == 0;
	if (ev.group_dead) {
		/* A group exit (exit_group, a fatal signal) leaves its code in the group. */
		if (BPF_CORE_READ(task, signal, flags) & SIGNAL_GROUP_EXIT)
			ev.exit_code = BPF_CORE_READ(task, signal, group_exit_code);
		else
			ev.exit_code = BPF_CORE_READ(task, exit_code);
		/*
		 * Forget the process here, before its pid can be reused: a later process with
		 * the same pid is neither followed nor stopped because of it.
		 */
		bpf_map_delete_elem(&targets, &ev.pid);
		bpf_map_delete_elem(&hold, &ev.pid);
		bpf_map_delete_elem(&held, &ev.pid);
		exit_rss(task, &ev);
	}
	send_event(ev.pid, &ev, sizeof(ev), 0);
	return 0;
}

/*
 * --sample-bytes: the calls counted on this CPU are those of the task leaving it
 * (thread_calls.bpf.h); the task coming is the owner of those counted next. Loaded in
 * sampled mode only: it runs at every task switch of the machine, and exits after a few
 * loads when the task leaving made no traced process's calls.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(calls_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct ht_cpu_calls *c;
	__u32 zero = 0;

	/* BTF pointers: read directly, where a helper call costs more than the rest. */
	thread_calls__flush(prev->tgid, prev->pid);
	c = bpf_map_lookup_elem(&cpu_calls, &zero);
	if (c) {
		c->pid = next->tgid;
		c->tid = next->pid;
	}
	return 0;
}

/*
 * The OOM killer chose a victim (a memory cgroup over its limit, or the whole machine):
 * runs in whichever task hit the limit, before the kill is delivered, so the victim's
 * calls so far are ahead of this event and its owner figures are those of this moment.
 * Loaded only where the kernel has the tracepoint (tracer.c).
 */
SEC("tp_btf/mark_victim")
int BPF_PROG(oom_victim, struct task_struct *task)
{
	struct ht_oom_event ev = {
		.type = HT_EV_OOM,
		.pid = BPF_CORE_READ(task, tgid),
		.time_ns = bpf_ktime_get_ns(),
	};

	if (!bpf_map_lookup_elem(&targets, &ev.pid))
		return 0;
	/*
	 * Its memory cgroup's counter now, before the kill frees anything: by the time
	 * userspace reads /proc the victim may have left its cgroup on its way out.
	 */
	if (bpf_core_enum_value_exists(enum cgroup_subsys_id, memory_cgrp_id)) {
		int id = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
		struct css_set *cset = BPF_CORE_READ(task, cgroups);
		struct cgroup_subsys_state *css = NULL;
		struct mem_cgroup *memcg;

		if (cset && id >= 0 && id < CGROUP_SUBSYS_COUNT)
			bpf_core_read(&css, sizeof(css), &cset->subsys[id]);
		memcg = css ? (void *)css - bpf_core_field_offset(struct mem_cgroup, css) : NULL;
		if (memcg) {
			ev.cgroup_ino = BPF_CORE_READ(css, cgroup, kn, id);
			ev.usage_pages = BPF_CORE_READ(memcg, memory.usage.counter);
			ev.max_pages = BPF_CORE_READ(memcg, memory.max);
			ev.watermark_pages = BPF_CORE_READ(memcg, memory.watermark);
			ev.memcg_known = 1;
		}
	}
	send_event(ev.pid, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
