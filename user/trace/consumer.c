// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The consumers: one thread per shard of processes, each draining its ring and handling
 * its events for the targets it owns. A call takes no lock but its consumer's (held for a
 * batch); a change of program takes the shared lock.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "guardian.h"
#include "log.h"
#include "movement.h"
#include "os_calls.h"
#include "session_internal.h"

/*
 * The longest a consumer sleeps between batches: calls do not wake it (a wake-up per call
 * costs the traced thread more than the call), a backlog or a process event does.
 */
#define CONSUMER_TICK_MS 10

/* Resolve a call's stack from its frames: in the event, or in the stacks map. */
static int resolve(struct target *t, const struct ht_call_event *ev, struct resolved_call *call)
{
	const struct ht_stack *stack = &ev->stack;
	struct ht_stack stored;

	if (!ht_call_carries_frames(ev)) {
		/*
		 * A program's ids stay in the map while it runs; a shared one may be new to
		 * this process, named by no other yet (its first event is in another ring).
		 */
		if (stored_stack(t, ev->stack_id, &stored))
			return -ENOENT;
		stack = &stored;
	}
	return symbolizer__resolve(t->symbolizer, ev->func, ev->stack_id, stack->frames,
				   stack->nr, call);
}

/*
 * The shared lock for a consumer's process events: behind the threads that serve holds,
 * whose processes are stopped while they wait (a mutex is not fair: consumers taking it
 * event after event would keep it from them for tens of milliseconds).
 */
static void consumer_shared_lock(struct session *s)
{
	while (__atomic_load_n(&s->holds_waiting, __ATOMIC_ACQUIRE))
		sched_yield();
	shared_lock(s);
}

/*
 * Named before, by its id or (without one) its frames: no lock, no shared table. An id
 * just given is new to its process too (ids go only with their program): nothing to look
 * for, where a miss walked a whole chain (~40% of the calls at an MPI start).
 */
static bool cached(struct target *t, const struct ht_call_event *ev, struct resolved_call *call)
{
	if (ev->stack_id)
		return !(ev->flags & HT_F_STACK_NEW) &&
		       symbolizer__cached(t->symbolizer, ev->func, ev->stack_id, call);
	return symbolizer__cached_frames(t->symbolizer, ev->func, ev->stack.frames, ev->stack.nr,
					 call);
}

static void on_call(struct session *s, struct consumer *c, const struct ht_call_event *ev)
{
	struct target *t = target_of(s, ev->pid);
	struct resolved_call call;
	struct movement moved;
	char comm[HT_COMM_LEN + 1];

	c->last_call_ns = ev->time_ns;
	/* A shared id is the node's whoever gave it, a process heaptap does not report too. */
	own_stack_id(s, t, ev->stack_id, ev->flags);
	if (!t)
		return;
	/* The stacks map is full (or nearly): make room, by the ids no program uses. */
	if (!ev->stack_id) {
		c->inline_stacks++;
		/* Not once tracing ends: the map goes with heaptap. */
		if (dead_ids__queued(&s->dead_ids) && !__atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE))
			delete_dead_ids(s);
	}
	if (!t->symbolizer) {
		t->lost_events++; /* its mappings could not be read in time */
		return;
	}
	/*
	 * A stack new to the process is named without the shared lock: what naming reads of
	 * the process (its maps, its answers) is its consumer's alone, and the symbol cache
	 * every consumer names from takes its own locks. Two consumers name their processes'
	 * stacks at once, and holds do not wait for them.
	 */
	if (!cached(t, ev, &call) && resolve(t, ev, &call)) {
		t->lost_events++;
		return;
	}
	if (call.internal)
		return;
	if (call.record) {
		call.record->calls++;
		if (!call.record->tree_path)
			call.record->tree_path = calltree__path_of(&t->tree, call.record->frames,
								   call.record->nr,
								   call.record->complete);
	}
	if (t->alloc.glibc && (ev->flags & HT_F_READ_FAILED))
		t->lost_events++; /* still counted as a call, but its bytes are unknown */
	if (!call.complete)
		t->incomplete_stacks++;
	if (!call.complete && s->unwind) {
		shared_lock(s);
		unwind_maps__note_cut(s->unwind, call.end_dev, call.end_inode);
		shared_unlock(s);
	}
	if (!call.complete && (ev->flags & HT_F_STACK_UNSUPPORTED))
		t->unsupported_unwinds++;
	moved = movement_of(ev, call.func, t->alloc.glibc);
	track_owner(t, ev, call.func, call.record, &moved, c->clock);
	memcpy(comm, ev->comm, HT_COMM_LEN);
	comm[HT_COMM_LEN] = '\0';
	/* Its command line could not be read (gone too soon): its main thread's name. */
	if (!t->command[0] && ev->tid == ev->pid)
		snprintf(t->command, sizeof(t->command), "%s", comm);
	if (call.record && call.record->tree_path)
		calltree__charge(call.record->tree_path, call.func, moved.delta, moved.requested,
				 moved.calls);
	else
		t->tree_lost++;
	if (accountant__charge(&t->stats, &(struct charge){
						  .func = call.func,
						  .tid = ev->tid,
						  .thread_name = comm,
						  .delta = moved.delta,
						  .requested = moved.requested,
						  .calls = moved.calls,
						  .library = call.library,
						  .function = call.function,
					  }))
		t->lost_events++;
}

static void on_custom_call(struct session *s, const struct ht_custom_event *ev, size_t size)
{
	struct target *t;

	if (size < HT_CUSTOM_EVENT_HEADER_SIZE || !(t = target_of(s, ev->pid)))
		return;
	/* Its frames follow when it has no id, or a new one. */
	if ((!ev->stack_id || (ev->flags & HT_F_STACK_NEW)) &&
	    (size < HT_CUSTOM_EVENT_HEADER_SIZE + HT_STACK_HEADER_SIZE ||
	     ev->stack.nr > HT_MAX_FRAMES ||
	     size < HT_CUSTOM_EVENT_HEADER_SIZE + HT_STACK_HEADER_SIZE +
			    ev->stack.nr * sizeof(__u64))) {
		t->lost_events++;
		return;
	}
	own_stack_id(s, t, ev->stack_id, ev->flags);
	custom_allocs__on_call(t, ev);
}

static bool call_fits(const struct ht_call_event *call, size_t size)
{
	return size >= HT_CALL_EVENT_HEADER_SIZE &&
	       (!ht_call_carries_frames(call) ||
		(size >= HT_CALL_EVENT_HEADER_SIZE + HT_STACK_HEADER_SIZE &&
		 call->stack.nr <= HT_MAX_FRAMES &&
		 size >= HT_CALL_EVENT_HEADER_SIZE + HT_STACK_HEADER_SIZE +
				 call->stack.nr * sizeof(__u64)));
}

/* Its calls until the OOM killer chose it are read (they come first): record who held it. */
static void oom_victim(struct session *s, const struct ht_oom_event *ev)
{
	struct target *t = target_of(s, ev->pid);
	struct cgroup_memory now;

	if (!t)
		return;
	oom_record__take(&t->oom, &t->owner, ev->time_ns / 1e9 - t->owner_since);
	if (ev->memcg_known) { /* as the kernel counted at the choice: exact */
		cgroup_memory__from_kernel(&t->oom.cgroup, ev->cgroup_ino, ev->usage_pages,
					   ev->max_pages, ev->watermark_pages);
	} else {
		/* It may have moved since first seen (a job step placed after its start). */
		if (cgroup_memory__find(t->pid, &now) == 0 && now.version)
			t->oom.cgroup = now;
		cgroup_memory__read(&t->oom.cgroup);
	}
	log_info("PID %d chosen by the OOM killer %.2f s into tracing, holding %llu bytes", t->pid,
		 t->oom.seconds, (unsigned long long)t->oom.bytes);
}

/* Anything but a call: the program, the process, the OS view. Under the shared lock. */
static void on_process_event(struct session *s, __u32 type, const void *data, size_t size)
{
	const struct ht_exit_event *exit = data;
	struct target *t;

	switch (type) {
	case HT_EV_CUSTOM_CALL:
		on_custom_call(s, data, size);
		break;
	case HT_EV_OS_CALL:
		handle_os_call(s, data, size);
		break;
	case HT_EV_LIBS_CHANGED:
		if (size >= sizeof(struct ht_libs_event))
			handle_libs_changed(s, data);
		break;
	case HT_EV_EXEC:
		if (size >= sizeof(struct ht_libs_event))
			handle_exec(s, data);
		break;
	case HT_EV_FORK:
		if (size >= sizeof(struct ht_fork_event))
			handle_fork(s, data);
		break;
	case HT_EV_LAUNCHER:
		if (size >= sizeof(struct ht_fork_event))
			handle_launcher(s, data);
		break;
	case HT_EV_EXIT:
		if (size < sizeof(struct ht_exit_event))
			break;
		if (exit->calls_known)
			thread_calls_exited(s, exit);
		if (exit->group_dead && (t = target_of(s, exit->pid))) {
			t->owner.event_ns = exit->time_ns; /* its blocks leave the node's sum */
			record_exit_rss(s, t, exit);
			target_exited(s, t, exit->exit_code, true);
		}
		break;
	case HT_EV_OOM:
		if (size >= sizeof(struct ht_oom_event))
			oom_victim(s, data);
		break;
	}
}

int consumer_on_event(void *ctx, unsigned shard, const void *data, size_t size)
{
	struct session *s = ctx;
	struct consumer *c = &s->consumers[shard];
	const struct ht_call_event *call = data;
	struct target *t;
	__u32 type;

	if (size < sizeof(type))
		return 0;
	memcpy(&type, data, sizeof(type));
	c->events++;
	/* A reader waits for this consumer's lock: end the batch after this event. */
	if (__atomic_load_n(&s->readers_waiting, __ATOMIC_RELAXED))
		c->yield = true;
	if (type == HT_EV_CALL) {
		if (call_fits(call, size))
			on_call(s, c, call);
		else if ((t = target_of(s, call->pid)))
			t->lost_events++;
	} else {
		consumer_shared_lock(s);
		on_process_event(s, type, data, size);
		shared_unlock(s);
	}
	return c->yield ? -EAGAIN : 0;
}

/*
 * A held loader event, on its shard's thread that serves holds: ahead of the consumers'
 * backlogs, and of their turns at the shared lock. The consumer that owns the process may
 * have handled its ordered event already, and let it go: then there is nothing left to do.
 */
int consumer_on_hold(void *ctx, unsigned shard, const void *data, size_t size)
{
	const struct ht_libs_event *ev = data;
	struct session *s = ctx;
	struct procmaps maps = {};

	(void)shard;
	/* Its maps are its own, and it is stopped: read them before taking the lock. */
	if (size < sizeof(*ev) || !ev->held || procmaps__read(ev->pid, &maps))
		return 0;
	__atomic_add_fetch(&s->holds_waiting, 1, __ATOMIC_ACQ_REL);
	shared_lock(s);
	__atomic_sub_fetch(&s->holds_waiting, 1, __ATOMIC_ACQ_REL);
	if (tracer__held(s->tracer, ev->pid, ev->hold_since))
		handle_hold_early(s, ev, &maps);
	shared_unlock(s);
	procmaps__clear(&maps);
	return 0;
}

/*
 * One a shard, as the consumers: sixteen ranks load the same plugin at once, and one
 * thread serving every hold in turn kept each waiting ~7 ms for those before it. Those of
 * several shards now overlap but for their time at the shared lock.
 */
static void *serve_holds(void *arg)
{
	struct consumer *c = arg;
	struct session *s = c->s;

	while (!__atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE)) {
		int n = tracer__wait_holds(s->tracer, c->idx, CONSUMER_TICK_MS);

		if (n < 0 && n != -EINTR)
			break;
		tracer__consume_holds(s->tracer, c->idx);
	}
	return NULL;
}

/*
 * Every interval: each of c's live targets' sites' outstanding bytes, for the leak test,
 * and its total (processes[].samples).
 */
static void sample_owners(struct session *s, struct consumer *c)
{
	struct target *t, *tmp;

	if (c->clock < c->next_sample)
		return;
	HASH_ITER(hh, c->targets, t, tmp)
		sample_target(t, c->clock, c->clock - s->started);
	/* The node's total, once an interval: by the first consumer, under its lock. */
	if (c->idx == 0) {
		node_total__lock(&s->node);
		total_series__add(&s->node_samples, c->clock - s->started, (int64_t)s->node.bytes,
				  (int64_t)s->node.peak_bytes, false);
		node_total__unlock(&s->node);
	}
	c->next_sample += s->sample_interval;
	if (c->next_sample < c->clock) /* heaptap was stopped: start the beat again */
		c->next_sample = c->clock + s->sample_interval;
}

/*
 * How long a call may take to reach its ring after BPF stamped its time (the program can
 * be preempted between the two): the node's merge waits for calls this much older than
 * what a consumer has read.
 */
#define NODE_ORDER_SLACK_NS 20000000ull

/* One batch: whatever the ring holds, then the samples due. Under c's lock. */
int consumer_batch(struct consumer *c)
{
	struct session *s = c->s;
	uint64_t start_ns = monotonic_ns(), read_to;
	int n;

	c->yield = false;
	n = tracer__consume(s->tracer, c->idx);
	/* A ring left with nothing read every call made before the batch began. */
	read_to = n >= 0 && n < TRACER_BATCH_EVENTS && !c->yield ? start_ns : c->last_call_ns;
	node_total__publish(&s->node, c->idx, &c->node_log,
			    read_to > NODE_ORDER_SLACK_NS ? read_to - NODE_ORDER_SLACK_NS : 0);
	c->clock = monotonic_ns() / 1e9;
	sample_owners(s, c);
	sample_rss_when_due(s, c);
	return n;
}

/*
 * One batch under c's lock. A batch cut short for a reader lets it have the lock first,
 * and counts as full: there is more to read at once. Events, or -errno.
 */
static int batch_in_turn(struct consumer *c)
{
	struct session *s = c->s;
	bool yielded;
	int n;

	consumer_lock(c);
	n = consumer_batch(c);
	yielded = c->yield; /* the main thread may run a batch of c's once it is let go */
	consumer_unlock(c);
	if (n < 0 || !yielded)
		return n;
	while (__atomic_load_n(&s->readers_waiting, __ATOMIC_ACQUIRE))
		sched_yield();
	return TRACER_BATCH_EVENTS;
}

static void *consume(void *arg)
{
	struct consumer *c = arg;
	struct session *s = c->s;
	int n = 0;

	while (!__atomic_load_n(&s->stopping, __ATOMIC_ACQUIRE)) {
		/* A full batch leaves more behind: read on, with a turn for the readers between. */
		if (n < TRACER_BATCH_EVENTS)
			n = tracer__wait(s->tracer, c->idx, CONSUMER_TICK_MS);
		if (n < 0 && n != -EINTR) {
			c->err = n;
			break;
		}
		n = batch_in_turn(c);
		if (n < 0) {
			c->err = n;
			break;
		}
	}
	/*
	 * Tracing ends with the calls stopped: each consumer reads what its ring still holds,
	 * beside the others, rather than the main thread reading every ring in turn after
	 * them (sixteen ranks' start left ~1.3 s of it).
	 */
	while (s->read_rest && !c->err) {
		n = batch_in_turn(c);
		if (n < 0)
			c->err = n;
		else if (n < TRACER_BATCH_EVENTS)
			break;
	}
	return NULL;
}

/*
 * Consumers and the threads serving holds run at nice -10 where heaptap may raise its
 * priority (CAP_SYS_NICE, held until set-up is done): a node's ranks spin in MPI_Init
 * while they wait for each other, and at the default nice, on a node with more ranks than
 * CPUs, the scheduler shares the CPUs out evenly, so heaptap's few threads fall seconds
 * behind the burst. Sixty-four ranks on two CPUs: at nice 0 the rings filled and 40% of the
 * calls were lost (holds 3 s a rank); at -10 none, the rings at most 16 MiB (holds 0.3 s a
 * rank). Their work is the same, done while it is due: a thread with nothing to read
 * sleeps. A thread takes its creator's nice: the starting thread raises its own for the
 * while, and goes back after (which needs no privilege).
 */
#define CONSUMER_NICE -10

static int start_threads(struct session *s)
{
	for (unsigned i = 0; i < s->nr_consumers; i++) {
		struct consumer *c = &s->consumers[i];
		char name[16];
		int err = pthread_create(&c->holds_thread, NULL, serve_holds, c);

		if (err)
			return -err;
		/* Named, so that top -H and perf tell heaptap's threads apart. */
		snprintf(name, sizeof(name), "heaptap-hold%u", i % 1000);
		pthread_setname_np(c->holds_thread, name);
		c->holds_running = true;
		err = pthread_create(&c->thread, NULL, consume, c);
		if (err)
			return -err;
		snprintf(name, sizeof(name), "heaptap-cons%u", i % 1000);
		pthread_setname_np(c->thread, name);
		c->running = true;
	}
	return 0;
}

int consumers__start(struct session *s)
{
	bool raised = false;
	int err, before;

	errno = 0;
	before = getpriority(PRIO_PROCESS, 0); /* this thread's */
	if (!errno && before > CONSUMER_NICE)
		raised = setpriority(PRIO_PROCESS, 0, CONSUMER_NICE) == 0;
	if (!raised)
		log_debug("heaptap's event threads at nice %d: %s", before,
			  errno ? strerror(errno) : "as high already");
	err = start_threads(s);
	if (raised)
		setpriority(PRIO_PROCESS, 0, before);
	return err;
}

void consumers__stop(struct session *s, bool read_rest)
{
	s->read_rest = read_rest;
	__atomic_store_n(&s->stopping, true, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < s->nr_consumers; i++) {
		struct consumer *c = &s->consumers[i];

		if (c->holds_running)
			pthread_join(c->holds_thread, NULL);
		c->holds_running = false;
		if (c->running)
			pthread_join(c->thread, NULL);
		c->running = false;
	}
	s->stopped = true;
}

/*
 * Every consumer's targets, and the ended ones: not the shared lock, which the thread that
 * serves holds needs (a reader's minute would be a held process's).
 */
void session__read_lock(struct session *s)
{
	/* Each consumer ends its batch at its next event, and waits until all are taken. */
	__atomic_add_fetch(&s->readers_waiting, 1, __ATOMIC_ACQ_REL);
	for (unsigned i = 0; i < s->nr_consumers; i++)
		consumer_lock(&s->consumers[i]);
	pthread_mutex_lock(&s->ended_lock);
	__atomic_sub_fetch(&s->readers_waiting, 1, __ATOMIC_ACQ_REL);
}

void session__read_unlock(struct session *s)
{
	pthread_mutex_unlock(&s->ended_lock);
	for (unsigned i = s->nr_consumers; i-- > 0;)
		consumer_unlock(&s->consumers[i]);
}
