// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The session's targets, and each event's way from the tracer to the accountant. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "guardian.h"
#include "log.h"
#include "movement.h"
#include "os_calls.h"
#include "procfs.h"
#include "session_internal.h"
#include "warmup.h"

static int on_event(void *ctx, const void *data, size_t size);
static int on_hold(void *ctx, const void *data, size_t size);
static void process_exited(struct session *s, const struct ht_exit_event *ev);
static void oom_victim(struct session *s, const struct ht_oom_event *ev);

/*
 * Each traced process costs a few descriptors (its probe links, while it lives), each
 * distinct file one: take all the kernel allows, not the shell's soft default.
 */
static void raise_fd_limit(void)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
}

int session__new(const struct session_opts *opts, struct session **out)
{
	struct session *s = calloc(1, sizeof(*s));
	struct tracer_options tracer_opts;
	struct warmup *warm;
	int err;

	if (!s)
		return -ENOMEM;
	raise_fd_limit();
	s->rule = opts->rule;
	s->detailed_stacks = opts->detailed_stacks;
	s->tree_budget = opts->tree_budget;
	s->mpi_only = opts->mpi_only;
	s->live_blocks_limit = opts->live_blocks;
	s->sample_bytes = opts->sample_bytes;
	s->sample_interval = opts->sample_interval > 0 ? opts->sample_interval : 1.0;
	s->clock = monotonic_ns() / 1e9;
	s->next_sample = s->clock + s->sample_interval;
	s->started = s->clock;
	if (opts->nr_allocators) {
		s->allocators = calloc(opts->nr_allocators, sizeof(*s->allocators));
		if (!s->allocators) {
			err = -ENOMEM;
			goto cleanup;
		}
		memcpy(s->allocators, opts->allocators,
		       opts->nr_allocators * sizeof(*s->allocators));
		s->nr_allocators = opts->nr_allocators;
	}
	s->cache = symcache__new();
	if (!s->cache) {
		err = -ENOMEM;
		goto cleanup;
	}
	symcache__set_limits(s->cache, &opts->symbol_budget);
	warm = opts->warm_own_libraries ? warmup__start(s->cache) : NULL;
	tracer_opts = (struct tracer_options){
		.follow_children = opts->follow,
		.custom_apis = opts->nr_allocators > 0,
		.sample_bytes = opts->sample_bytes,
		.unwind_rows = opts->unwind_tables ?
				       opts->table_budget.total / sizeof(struct ht_unwind_row) : 1,
	};
	err = tracer__new(on_event, s, &tracer_opts, &s->tracer);
	warmup__join(warm);
	if (err)
		goto cleanup;
	tracer__on_holds(s->tracer, on_hold);
	s->dead_ids.map_fd = tracer__stacks_fd(s->tracer);
	if (opts->unwind_tables) {
		int rows_fd, processes_fd;
		uint32_t capacity;

		tracer__unwind_maps(s->tracer, &rows_fd, &capacity, &processes_fd);
		s->unwind = unwind_maps__new(rows_fd, capacity, processes_fd);
		if (!s->unwind) {
			err = -ENOMEM;
			goto cleanup;
		}
		unwind_maps__limit_files(s->unwind, opts->table_budget.per_file);
	}
	*out = s;
	return 0;
cleanup:
	session__free(s);
	return err;
}

static void free_target(struct target *t)
{
	symbolizer__free(t->symbolizer);
	held_maps__clear(&t->held_maps);
	accountant__clear(&t->stats);
	owner__clear(&t->owner);
	custom_allocs__free(t->custom);
	stack_records__clear(&t->stacks);
	calltree__clear(&t->tree);
	mapping_stats__clear(&t->mappings);
	total_series__clear(&t->samples);
	stack_ids__clear(&t->stack_ids);
	free(t);
}

void session__free(struct session *s)
{
	struct target *t, *tmp;

	if (!s)
		return;
	HASH_ITER(hh, s->targets, t, tmp) {
		HASH_DEL(s->targets, t);
		free_target(t);
	}
	while ((t = s->ended)) {
		s->ended = t->next_ended;
		free_target(t);
	}
	while (s->untraced) {
		struct untraced *u = s->untraced;

		s->untraced = u->next;
		free(u);
	}
	dead_ids__free(&s->dead_ids); /* the map goes with the tracer */
	tracer__free(s->tracer);
	symcache__free(s->cache);
	unwind_maps__free(s->unwind);
	total_series__clear(&s->node_samples);
	free(s->sorted);
	free(s->allocators);
	free(s);
}

const char *session__problem(const struct session *s)
{
	return s->problem[0] ? s->problem : NULL;
}

struct target *new_target(struct session *s, pid_t pid)
{
	struct target *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->pid = pid;
	t->uid = (uid_t)-1;
	t->serial = ++s->serials;
	t->stack_ids.map_fd = tracer__stacks_fd(s->tracer);
	t->stacks.detailed = s->detailed_stacks;
	/*
	 * An ended program's ids include its pid: deleted later, they could take ids from a
	 * new process that has its pid and its stacks.
	 */
	dead_ids__delete(&s->dead_ids);
	mpi_identity_from_environ("", 0, &t->mpi);
	/* Without memory for its table, its blocks go unowned: the balances still count. */
	owner__init(&t->owner, s->live_blocks_limit, s->sample_interval);
	owner__set_sampling(&t->owner, s->sample_bytes);
	owner__join_node(&t->owner, &s->node);
	t->owner_since = s->clock;
	/* Now, while it is alive: the OOM killer's victim may be gone when its event is read. */
	cgroup_memory__find(pid, &t->oom.cgroup);
	HASH_ADD_INT(s->targets, pid, t);
	return t;
}

struct stack_records *stack_records_of(struct session *s, struct target *t)
{
	(void)s;
	return &t->stacks;
}

struct target *target_of(struct session *s, pid_t pid)
{
	struct target *t;

	HASH_FIND_INT(s->targets, &pid, t);
	return t;
}

bool session__knows(struct session *s, pid_t pid)
{
	return target_of(s, pid) != NULL;
}

/* Resolve a call's stack from its frames: in the event, or in the stacks map. */
static int resolve(struct target *t, const struct ht_call_event *ev, struct resolved_call *call)
{
	const struct ht_stack *stack = &ev->stack;
	struct ht_stack stored;

	if (!ht_call_carries_frames(ev)) {
		/* cannot fail: a program's ids stay in the map while it runs */
		if (stack_ids__frames(&t->stack_ids, ev->stack_id, &stored))
			return -ENOENT;
		stack = &stored;
	}
	return symbolizer__resolve(t->symbolizer, ev->func, ev->stack_id, stack->frames,
				   stack->nr, call);
}

static void on_call(struct session *s, const struct ht_call_event *ev)
{
	struct target *t = target_of(s, ev->pid);
	struct resolved_call call;
	struct movement moved;
	char comm[HT_COMM_LEN + 1];

	if (!t)
		return;
	/* The stacks map is full (or nearly): make room, by the ids no program uses. */
	if (!ev->stack_id && s->dead_ids.nr)
		dead_ids__delete(&s->dead_ids);
	/* Out of memory, the id would only stay in the map: the call still counts. */
	if (ev->stack_id && (ev->flags & HT_F_STACK_NEW))
		stack_ids__own(&t->stack_ids, ev->stack_id);
	if (!t->symbolizer) {
		t->lost_events++; /* its mappings could not be read in time */
		return;
	}
	if ((!ev->stack_id || !symbolizer__cached(t->symbolizer, ev->func, ev->stack_id, &call)) &&
	    resolve(t, ev, &call)) {
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
	if (!call.complete && s->unwind)
		unwind_maps__note_cut(s->unwind, call.end_dev, call.end_inode);
	if (!call.complete && (ev->flags & HT_F_STACK_UNSUPPORTED))
		t->unsupported_unwinds++;
	moved = movement_of(ev, call.func, t->alloc.glibc);
	track_owner(s, t, ev, call.func, call.record, &moved);
	memcpy(comm, ev->comm, HT_COMM_LEN);
	comm[HT_COMM_LEN] = '\0';
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
	custom_allocs__on_call(t, ev);
}

static int on_event(void *ctx, const void *data, size_t size)
{
	struct session *s = ctx;
	const struct ht_call_event *call = data;
	struct target *t;
	__u32 type;

	if (size < sizeof(type))
		return 0;
	memcpy(&type, data, sizeof(type));
	s->events++;
	switch (type) {
	case HT_EV_CALL:
		if (size < HT_CALL_EVENT_HEADER_SIZE ||
		    (ht_call_carries_frames(call) &&
		     (size < HT_CALL_EVENT_HEADER_SIZE + HT_STACK_HEADER_SIZE ||
		      call->stack.nr > HT_MAX_FRAMES ||
		      size < HT_CALL_EVENT_HEADER_SIZE + HT_STACK_HEADER_SIZE +
				     call->stack.nr * sizeof(__u64)))) {
			if ((t = target_of(s, call->pid)))
				t->lost_events++;
			return 0;
		}
		on_call(s, call);
		break;
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
		if (((const struct ht_exit_event *)data)->calls_known)
			thread_calls_exited(s, data);
		if (((const struct ht_exit_event *)data)->group_dead)
			process_exited(s, data);
		break;
	case HT_EV_OOM:
		if (size >= sizeof(struct ht_oom_event))
			oom_victim(s, data);
		break;
	}
	return 0;
}

static int on_hold(void *ctx, const void *data, size_t size)
{
	if (size >= sizeof(struct ht_libs_event))
		handle_hold_early(ctx, data);
	return 0;
}

int session__poll(struct session *s, int timeout_ms)
{
	int n = tracer__poll(s->tracer, timeout_ms);

	s->clock = monotonic_ns() / 1e9;
	sample_owners(s);
	sample_rss_when_due(s);
	return n < 0 ? n : 0;
}

void session__stop(struct session *s)
{
	struct tracer_holds holds = tracer__holds(s->tracer);
	struct target *t, *tmp;

	if (holds.nr)
		log_debug("%llu holds, %.2f ms on average, %.2f ms the longest",
			  (unsigned long long)holds.nr, holds.total_ns / 1e6 / holds.nr,
			  holds.longest_ns / 1e6);
	tracer__stop_calls(s->tracer);
	tracer__stack_cache_stats(s->tracer, &s->stack_cache.hits, &s->stack_cache.walks);
	log_debug("stacks: %llu from the cache, %llu walked",
		  (unsigned long long)s->stack_cache.hits, (unsigned long long)s->stack_cache.walks);
	HASH_ITER(hh, s->targets, t, tmp)
		tracer__detach(s->tracer, t->pid);
	tracer__drain(s->tracer);
	if (s->sample_bytes)
		thread_calls_at_stop(s);
	s->clock = monotonic_ns() / 1e9;
	HASH_ITER(hh, s->targets, t, tmp)
		sample_total_now(s, t);
	total_series__add(&s->node_samples, s->clock - s->started, (int64_t)s->node.bytes,
			  (int64_t)s->node.peak_bytes, true);
}

const struct node_total *session__node(const struct session *s,
				       const struct total_series **samples)
{
	*samples = &s->node_samples;
	return &s->node;
}

size_t session__live_targets(const struct session *s)
{
	const struct target *t, *tmp;
	size_t live = 0;

	HASH_ITER(hh, s->targets, t, tmp)
		live += !t->exited && !t->untraced;
	return live;
}

/*
 * What an ended process keeps for the report: its call tree, its allocation sites, its
 * mapping calls' stacks, its samples.
 */
static size_t ended_bytes(const struct target *t)
{
	/* With --stacks the records are the report, kept whatever the budget. */
	size_t records = t->stacks.detailed ? 0 : t->stacks.bytes;

	return t->tree.bytes + records + owner__sites_bytes(&t->owner) +
	       mapping_stats__stacks_bytes(&t->mappings) +
	       (size_t)t->samples.cap * sizeof(*t->samples.items);
}

/*
 * Ended processes' trees and allocation sites stay for the report, within the budget:
 * beyond it, the oldest ended ones go (a service attached for weeks sees thousands of
 * jobs), and say so.
 */
static void keep_ended_trees_within_budget(struct session *s)
{
	while (s->ended_tree_bytes > s->tree_budget) {
		struct target *oldest = NULL;

		for (struct target *e = s->ended; e; e = e->next_ended) {
			if (!e->tree_dropped)
				oldest = e;
		}
		if (!oldest)
			return;
		s->ended_tree_bytes -= ended_bytes(oldest);
		calltree__clear(&oldest->tree);
		owner__drop_sites(&oldest->owner);
		mapping_stats__drop_stacks(&oldest->mappings);
		total_series__clear(&oldest->samples);
		if (!oldest->stacks.detailed) /* with --stacks they are the report */
			stack_records__clear(&oldest->stacks);
		oldest->tree_dropped = true;
	}
}

void end_target(struct session *s, struct target *t)
{
	forget_program(s, t);
	sample_total_now(s, t);
	owner__end(&t->owner);
	mapping_stats__end(&t->mappings);
	tracer__take_losses(s->tracer, t->pid, &t->kernel_losses);
	HASH_DEL(s->targets, t);
	t->next_ended = s->ended;
	s->ended = t;
	s->ended_tree_bytes += ended_bytes(t);
	keep_ended_trees_within_budget(s);
}

/*
 * The process is gone, and its events are read (they come before this one): keep its
 * report and forget the rest, so that a later process with its pid is a stranger.
 */
static void process_exited(struct session *s, const struct ht_exit_event *ev)
{
	struct target *t = target_of(s, ev->pid);

	if (!t)
		return;
	t->exited = true;
	t->exit_code = ev->exit_code;
	t->exit_known = true;
	record_exit_rss(s, t, ev);
	tracer__detach(s->tracer, t->pid);
	end_target(s, t);
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

void session__mark_exited(struct session *s, pid_t pid, int wstatus)
{
	struct target *t;

	/* Its exit event is likely queued: it carries the status, and its last calls. */
	tracer__drain(s->tracer);
	t = target_of(s, pid);
	if (!t)
		return;
	t->exited = true;
	t->exit_code = wstatus;
	t->exit_known = wstatus >= 0;
	tracer__detach(s->tracer, t->pid);
	end_target(s, t);
}

/* By pid; one pid's images (exec) and reused pids in the order they ran. */
static int by_pid_then_age(const void *a, const void *b)
{
	const struct target *x = *(struct target *const *)a, *y = *(struct target *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->serial < y->serial ? -1 : x->serial > y->serial;
}

size_t session__targets(struct session *s, struct target ***out)
{
	size_t n = HASH_COUNT(s->targets), i = 0;
	struct target *t, *tmp;

	for (t = s->ended; t; t = t->next_ended)
		n++;
	free(s->sorted);
	s->sorted = calloc(n ? n : 1, sizeof(*s->sorted));
	if (!s->sorted)
		return 0;
	HASH_ITER(hh, s->targets, t, tmp) {
		if (!t->untraced) /* --mpi: launchers are followed, not reported */
			s->sorted[i++] = t;
	}
	for (t = s->ended; t; t = t->next_ended) {
		if (!t->untraced)
			s->sorted[i++] = t;
	}
	qsort(s->sorted, i, sizeof(*s->sorted), by_pid_then_age);
	for (size_t k = 0; k < i; k++) {
		accountant__sort(&s->sorted[k]->stats);
		mapping_stats__sort(&s->sorted[k]->mappings);
		calltree__sort(&s->sorted[k]->tree);
	}
	*out = s->sorted;
	return i;
}

/* The kernel's count for a live target, the one taken at its end for the others. */
static struct ht_losses kernel_losses(struct session *s, const struct target *t)
{
	struct ht_losses l = t->kernel_losses;

	if (target_of(s, t->pid) == t)
		tracer__losses(s->tracer, t->pid, &l);
	return l;
}

uint64_t session__lost_events(struct session *s, const struct target *t)
{
	struct ht_losses l = kernel_losses(s, t);

	return t->lost_events + l.ringbuf_full + l.inflight_full;
}

uint64_t session__holds_skipped(struct session *s, const struct target *t)
{
	return kernel_losses(s, t).holds_skipped;
}

const struct untraced *session__untraced(const struct session *s)
{
	return s->untraced;
}

void session__note_untraced(struct session *s, pid_t pid, const char *reason)
{
	struct untraced *u = calloc(1, sizeof(*u));
	struct target *t = target_of(s, pid);

	log_error("PID %d%s%s%s: not traced: %s", pid, t ? " (" : "", t ? t->command : "",
		  t ? ")" : "", reason);
	if (!u)
		return;
	u->pid = pid;
	if (t) {
		snprintf(u->command, sizeof(u->command), "%s", t->command);
	} else {
		char *comm;
		size_t len;

		if (procfs_read(pid, "comm", &comm, &len) == 0) {
			comm[strcspn(comm, "\n")] = '\0';
			snprintf(u->command, sizeof(u->command), "%s", comm);
			free(comm);
		}
	}
	snprintf(u->reason, sizeof(u->reason), "%s", reason);
	u->next = s->untraced;
	s->untraced = u;
}

uint64_t session__events(const struct session *s)
{
	return s->events;
}

const struct symcache *session__symcache(const struct session *s)
{
	return s->cache;
}

const struct budget *session__table_budget(const struct session *s)
{
	return s->unwind ? unwind_maps__budget(s->unwind) : NULL;
}

struct stack_cache_stats session__stack_cache(const struct session *s)
{
	return s->stack_cache;
}

size_t session__unwind_files(const struct session *s, const struct unwind_file **files)
{
	*files = NULL;
	return s->unwind ? unwind_maps__files(s->unwind, files) : 0;
}

enum attribution_rule session__rule(const struct session *s)
{
	return s->rule;
}
