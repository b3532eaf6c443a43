// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * --sample-bytes: each thread's calls as BPF counted them, exactly (bpf/thread_calls.bpf.h),
 * in place of the estimates its sampled calls stood for: a thread's at its exit, the live
 * threads' when tracing stops.
 */
#include <string.h>
#include "log.h"
#include "session_internal.h"

/*
 * The target pid is, or its newest ended image: a thread of an exit_group may be read
 * after the process's last thread ended it.
 */
static struct target *target_or_ended(struct session *s, pid_t pid)
{
	struct target *t = target_of(s, pid);

	pthread_mutex_lock(&s->ended_lock);
	for (struct target *e = s->ended; !t && e; e = e->next_ended) {
		if (e->pid == pid)
			t = e;
	}
	pthread_mutex_unlock(&s->ended_lock);
	return t;
}

static void count(struct session *s, uint32_t pid, uint32_t tid, const char *name,
		  const uint64_t *calls)
{
	struct target *t = target_or_ended(s, (pid_t)pid);

	if (t && accountant__count_thread_calls(&t->stats, tid, name, calls))
		t->lost_events++; /* no memory for the thread: its calls are not in the report */
}

void thread_calls_exited(struct session *s, const struct ht_exit_event *ev)
{
	char name[sizeof(ev->comm) + 1] = { 0 };

	__builtin_memcpy(name, ev->comm, sizeof(ev->comm));
	count(s, ev->pid, ev->tid, name, (const uint64_t *)ev->calls);
}

static void count_live(void *ctx, uint32_t pid, uint32_t tid, const uint64_t *calls)
{
	count(ctx, pid, tid, NULL, calls);
}

void thread_calls_at_stop(struct session *s)
{
	int err = tracer__thread_calls(s->tracer, count_live, s);

	if (err)
		log_info("the live threads' call counts cannot be read: %s", strerror(-err));
}
