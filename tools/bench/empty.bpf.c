// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Probes that do nothing: what the trap alone costs, the floor heaptap is measured on.
 * For the floor of a job of many processes, the same programs through uprobe_multi links,
 * counting their hits so that a floor that probed nothing cannot pass for a cheap one,
 * and the few tracepoints that follow a job's processes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define SIGSTOP 19

enum { EMPTY_EV_EXEC = 1, EMPTY_EV_EXIT = 2 };

struct empty_event {
	__u32 type;
	__u32 pid;
	__u64 stopped_ns; /* when the hold began; 0 if the process was not held */
};

/* Processes of the job (pid -> unused): forked by one, forgotten at exit. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

/* Events the ring buffer had no room for: the floor is then wrong, and says so. */
__u64 lost;

SEC("uprobe")
int BPF_KPROBE(empty_entry)
{
	return 0;
}

/*
 * With --send, the return program also sends what heaptap sends for each call: a record
 * of its call event's size (HT_CALL_EVENT_HEADER_SIZE) to a ring of its size, that a
 * thread drains; the cost of the send alone, heaptap's other work left out.
 */
#define CALL_EVENT_SIZE 104

const volatile bool send_calls;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8[CALL_EVENT_SIZE]);
} call_record SEC(".maps");

SEC("uretprobe")
int BPF_KRETPROBE(empty_return)
{
	__u32 zero = 0;
	void *record;

	if (!send_calls || !(record = bpf_map_lookup_elem(&call_record, &zero)))
		return 0;
	if (bpf_ringbuf_output(&calls, record, CALL_EVENT_SIZE, BPF_RB_NO_WAKEUP))
		__sync_fetch_and_add(&lost, 1);
	return 0;
}

static __always_inline void count_hit(void)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&hits, &zero);

	if (n)
		(*n)++;
}

/* Loaded as uprobe_multi programs (userspace sets their attach type). */
SEC("uprobe")
int BPF_KPROBE(multi_entry)
{
	count_hit();
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(multi_return)
{
	count_hit();
	return 0;
}

static __always_inline void send(__u32 type, __u32 pid, bool hold)
{
	struct empty_event *ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);

	if (!ev) {
		__sync_fetch_and_add(&lost, 1); /* and no hold: nobody would release it */
		return;
	}
	ev->type = type;
	ev->pid = pid;
	ev->stopped_ns = 0;
	/* Stopped before userspace hears of it: it cannot run ahead of its probes. */
	if (hold && bpf_send_signal(SIGSTOP) == 0)
		ev->stopped_ns = bpf_ktime_get_ns();
	bpf_ringbuf_submit(ev, BPF_RB_FORCE_WAKEUP);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(follow_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = BPF_CORE_READ(parent, tgid), pid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (pid != ppid && bpf_map_lookup_elem(&targets, &ppid) &&
	    bpf_map_update_elem(&targets, &pid, &one, BPF_ANY))
		__sync_fetch_and_add(&lost, 1);
	return 0;
}

/*
 * A new program: held once, until its probes are placed. tp_btf, as heaptap's own: a
 * classic tracepoint needs tracefs mounted, which a fresh machine may not have.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(hold_exec)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;

	if (bpf_map_lookup_elem(&targets, &pid))
		send(EMPTY_EV_EXEC, pid, true);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(forget_exit)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 pid = bpf_get_current_pid_tgid() >> 32;

	if (!bpf_map_lookup_elem(&targets, &pid) || BPF_CORE_READ(task, signal, live.counter))
		return 0; /* not ours, or other threads live on */
	bpf_map_delete_elem(&targets, &pid);
	send(EMPTY_EV_EXIT, pid, false);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
