// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The session's targets, and each event's way from the tracer to the accountant. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "movement.h"
#include "session_internal.h"

static int on_event(void *ctx, const void *data, size_t size);
static void target_ended(struct session *s, pid_t pid);

int session__new(const struct session_opts *opts, struct session **out)
{
	struct session *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	s->rule = opts->rule;
	s->mpi_only = opts->mpi_only;
	s->record_stacks = opts->record_stacks;
	s->cache = symcache__new();
	if (!s->cache) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = tracer__new(on_event, s, opts->follow, &s->tracer);
	if (err)
		goto cleanup;
	if (opts->unwind_tables) {
		int rows_fd, processes_fd;
		uint32_t capacity;

		tracer__unwind_maps(s->tracer, &rows_fd, &capacity, &processes_fd);
		s->unwind = unwind_maps__new(rows_fd, capacity, processes_fd);
		if (!s->unwind) {
			err = -ENOMEM;
			goto cleanup;
		}
	}
	*out = s;
	return 0;
cleanup:
	session__free(s);
	return err;
}

void session__free(struct session *s)
{
	struct target *t, *tmp;

	if (!s)
		return;
	HASH_ITER(hh, s->targets, t, tmp) {
		HASH_DEL(s->targets, t);
		symbolizer__free(t->symbolizer);
		accountant__clear(&t->stats);
		stack_records__clear(&t->stacks);
		stack_ids__release(&t->stack_ids);
		free(t);
	}
	tracer__free(s->tracer); /* after the targets: they give their stacks back to it */
	symcache__free(s->cache);
	unwind_maps__free(s->unwind);
	free(s->sorted);
	free(s);
}

struct target *new_target(struct session *s, pid_t pid)
{
	struct target *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->pid = pid;
	t->stack_ids.map_fd = tracer__stacks_fd(s->tracer);
	mpi_identity_from_environ("", 0, &t->mpi);
	HASH_ADD_INT(s->targets, pid, t);
	return t;
}

struct stack_records *stack_records_of(struct session *s, struct target *t)
{
	return s->record_stacks ? &t->stacks : NULL;
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

static void on_call(struct session *s, const struct ht_call_event *ev)
{
	struct target *t = target_of(s, ev->pid);
	const __u64 *frames = ev->stack.frames;
	__u32 nr_frames = ev->stack.nr;
	struct resolved_call call;
	struct movement moved;
	char comm[HT_COMM_LEN + 1];

	if (!t)
		return;
	if (ev->stack_id && !(frames = stack_ids__frames(&t->stack_ids, ev->stack_id, &nr_frames))) {
		t->lost_events++; /* cannot happen: ids live until the process exits */
		return;
	}
	if (!t->symbolizer) {
		t->lost_events++; /* its mappings could not be read in time */
		return;
	}
	if (symbolizer__resolve(t->symbolizer, ev->func, frames, nr_frames, &call)) {
		t->lost_events++;
		return;
	}
	if (call.internal)
		return;
	if (call.record)
		call.record->calls++;
	if (t->alloc.glibc && (ev->flags & HT_F_READ_FAILED))
		t->lost_events++; /* still counted as a call, but its bytes are unknown */
	if (!call.complete)
		t->incomplete_stacks++;
	if (!call.complete && (ev->flags & HT_F_STACK_UNSUPPORTED))
		t->unsupported_unwinds++;
	moved = movement_of(ev, call.func, t->alloc.glibc);
	memcpy(comm, ev->comm, HT_COMM_LEN);
	comm[HT_COMM_LEN] = '\0';
	if (accountant__charge(&t->stats, &(struct charge){
						  .func = call.func,
						  .tid = ev->tid,
						  .thread_name = comm,
						  .delta = moved.delta,
						  .requested = moved.requested,
						  .library = call.library,
						  .function = call.function,
					  }))
		t->lost_events++;
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
		    (!call->stack_id &&
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
		if (size >= sizeof(struct ht_exit_event) &&
		    ((const struct ht_exit_event *)data)->group_dead)
			target_ended(s, ((const struct ht_exit_event *)data)->pid);
		break;
	}
	return 0;
}

int session__poll(struct session *s, int timeout_ms)
{
	int n = tracer__poll(s->tracer, timeout_ms);

	return n < 0 ? n : 0;
}

void session__stop(struct session *s)
{
	struct target *t, *tmp;

	tracer__stop_calls(s->tracer);
	HASH_ITER(hh, s->targets, t, tmp)
		tracer__detach(s->tracer, t->pid);
	tracer__drain(s->tracer);
}

size_t session__live_targets(const struct session *s)
{
	const struct target *t, *tmp;
	size_t live = 0;

	HASH_ITER(hh, s->targets, t, tmp)
		live += !t->exited && !t->untraced;
	return live;
}

/* The process is gone, and its events are read: what the kernel kept for it can go. */
static void target_ended(struct session *s, pid_t pid)
{
	struct target *t = target_of(s, pid);

	if (!t)
		return;
	t->exited = true;
	if (s->unwind)
		unwind_maps__forget(s->unwind, pid);
	stack_ids__release(&t->stack_ids);
}

void session__mark_exited(struct session *s, pid_t pid)
{
	/* Its last calls may still be queued, and need its stack ids. */
	tracer__drain(s->tracer);
	target_ended(s, pid);
}

static int by_pid(struct target *a, struct target *b)
{
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

size_t session__targets(struct session *s, struct target ***out)
{
	size_t n = HASH_COUNT(s->targets), i = 0;
	struct target *t, *tmp;

	HASH_SORT(s->targets, by_pid);
	free(s->sorted);
	s->sorted = calloc(n ? n : 1, sizeof(*s->sorted));
	if (!s->sorted)
		return 0;
	HASH_ITER(hh, s->targets, t, tmp) {
		if (t->untraced)
			continue; /* --mpi: launchers are followed, not reported */
		accountant__sort(&t->stats);
		s->sorted[i++] = t;
	}
	*out = s->sorted;
	return i;
}

uint64_t session__lost_events(struct session *s, const struct target *t)
{
	return t->lost_events + tracer__lost_events(s->tracer, t->pid);
}

uint64_t session__events(const struct session *s)
{
	return s->events;
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
