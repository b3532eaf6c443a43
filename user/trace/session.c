// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The session: the tracer, what its consumers share, and what the commands ask of it
 * (polling, stopping, the targets for the reports). Each consumer owns its targets
 * (consumer.c, target.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/resource.h>
#include "guardian.h"
#include "log.h"
#include "movement.h"
#include "os_calls.h"
#include "procfs.h"
#include "session_internal.h"
#include "warmup.h"


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

/* The consumers, their locks and the shared one; no thread yet. */
static int make_consumers(struct session *s, unsigned nr)
{
	pthread_mutexattr_t recursive;

	pthread_mutexattr_init(&recursive);
	pthread_mutexattr_settype(&recursive, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&s->shared, &recursive);
	pthread_mutex_init(&s->ended_lock, &recursive);
	s->nr_consumers = nr < 1 ? 1 : nr > HT_MAX_SHARDS ? HT_MAX_SHARDS : nr;
	s->consumers = calloc(s->nr_consumers, sizeof(*s->consumers));
	if (!s->consumers) {
		pthread_mutexattr_destroy(&recursive);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < s->nr_consumers; i++) {
		struct consumer *c = &s->consumers[i];

		c->s = s;
		c->idx = i;
		c->clock = s->clock;
		c->next_sample = s->clock + s->sample_interval;
		c->rss_next = s->clock;
		pthread_mutex_init(&c->lock, &recursive);
	}
	pthread_mutexattr_destroy(&recursive);
	return 0;
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
	s->started = s->clock;
	s->rss_started = s->clock;
	s->watched_fd = -1;
	err = make_consumers(s, opts->consumers);
	if (!err)
		err = node_total__init(&s->node, s->nr_consumers, (uint64_t)(s->started * 1e9));
	if (err)
		goto cleanup;
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
	s->node_stacks = node_stacks__new(opts->detailed_stacks);
	if (!s->cache || !s->node_stacks) {
		err = -ENOMEM;
		goto cleanup;
	}
	symcache__set_limits(s->cache, &opts->symbol_budget);
	warm = opts->warm_own_libraries ? warmup__start(s->cache) : NULL;
	tracer_opts = (struct tracer_options){
		.nr_shards = s->nr_consumers,
		.ring_bytes = opts->ring_bytes,
		.follow_children = opts->follow,
		.custom_apis = opts->nr_allocators > 0,
		.sample_bytes = opts->sample_bytes,
		.unwind_rows = opts->unwind_tables ?
				       opts->table_budget.total / sizeof(struct ht_unwind_row) : 1,
	};
	err = tracer__new(consumer_on_event, s, &tracer_opts, &s->tracer);
	warmup__join(warm);
	if (err)
		goto cleanup;
	tracer__on_holds(s->tracer, consumer_on_hold);
	dead_ids__init(&s->dead_ids, tracer__stacks_fd(s->tracer));
	/* Half the map, unless a test asks for less (every quiet moment, with 0). */
	s->shared_keep = tracer__stacks_capacity(s->tracer) / 2;
	if (getenv("HEAPTAP_SHARED_STACKS_KEEP"))
		s->shared_keep = strtoull(getenv("HEAPTAP_SHARED_STACKS_KEEP"), NULL, 10);
	if (opts->unwind_tables) {
		int rows_fd, processes_fd;
		uint32_t capacity;

		tracer__unwind_maps(s->tracer, &rows_fd, &capacity, &processes_fd);
		s->unwind = unwind_maps__new(rows_fd, capacity, processes_fd, s->node_stacks);
		if (!s->unwind) {
			err = -ENOMEM;
			goto cleanup;
		}
		unwind_maps__limit_files(s->unwind, opts->table_budget.per_file);
	}
	log_debug("%u consumers, a ring of %llu MiB each", s->nr_consumers,
		  (unsigned long long)(tracer__ring_fill(s->tracer, 0).bytes >> 20));
	err = consumers__start(s);
	if (err)
		goto cleanup;
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
	if (s->consumers)
		consumers__stop(s, false);
	for (unsigned i = 0; s->consumers && i < s->nr_consumers; i++) {
		struct consumer *c = &s->consumers[i];

		HASH_ITER(hh, c->targets, t, tmp) {
			HASH_DEL(c->targets, t);
			free_target(t);
		}
		node_log__clear(&c->node_log);
		pthread_mutex_destroy(&c->lock);
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
	node_stacks__free(s->node_stacks);
	total_series__clear(&s->node_samples);
	node_total__clear(&s->node);
	free(s->sorted);
	free(s->allocators);
	free(s->consumers);
	pthread_mutex_destroy(&s->shared);
	pthread_mutex_destroy(&s->ended_lock);
	free(s);
}

const char *session__problem(const struct session *s)
{
	return s->problem[0] ? s->problem : NULL;
}

int session__poll(struct session *s, int timeout_ms)
{
	/* The consumers deliver the events: here, only the wait, or what a stop left. */
	if (s->stopped) {
		tracer__drain(s->tracer);
	} else {
		for (unsigned i = 0; i < s->nr_consumers; i++) {
			if (s->consumers[i].err)
				return s->consumers[i].err;
		}
		struct pollfd watched = { .fd = s->watched_fd, .events = POLLIN };

		/* A pidfd polls readable once its process has exited: no wait4() to poll it. */
		poll(&watched, s->watched_fd >= 0, timeout_ms);
	}
	s->clock = monotonic_ns() / 1e9;
	return 0;
}

static double own_cpu_seconds(void)
{
	struct rusage own;

	if (getrusage(RUSAGE_SELF, &own))
		return 0;
	return own.ru_utime.tv_sec + own.ru_stime.tv_sec +
	       (own.ru_utime.tv_usec + own.ru_stime.tv_usec) / 1e6;
}

/* -v: how full each ring came, what the holds took, heaptap's own CPU. */
static void log_consumers(struct session *s)
{
	struct tracer_holds holds = tracer__holds(s->tracer);

	if (holds.nr)
		log_debug("%llu holds, %.2f ms on average, %.2f ms the longest",
			  (unsigned long long)holds.nr, holds.total_ns / 1e6 / holds.nr,
			  holds.longest_ns / 1e6);
	for (unsigned i = 0; i < s->nr_consumers; i++) {
		struct ring_fill fill = tracer__ring_fill(s->tracer, i);

		log_debug("consumer %u: %llu events, its ring filled to %.1f of %llu MiB at most",
			  i, (unsigned long long)s->consumers[i].events, fill.peak / 1048576.0,
			  (unsigned long long)(fill.bytes >> 20));
	}
	/* Every thread of heaptap's, not the processes it runs: what tracing cost it. */
	log_debug("heaptap's own CPU: %.3f s for %llu events; stack map: %llu of %u ids at "
		  "most, %llu calls with their frames inline", own_cpu_seconds(),
		  (unsigned long long)session__events(s),
		  (unsigned long long)s->stack_ids_peak, tracer__stacks_capacity(s->tracer),
		  (unsigned long long)session__figures(s).inline_stacks);
}

void session__stop(struct session *s)
{
	struct target *t, *tmp;

	if (s->stopped)
		return;
	tracer__stop_calls(s->tracer);
	/* The calls stopped, every consumer reads the rest of its ring, and ends. */
	consumers__stop(s, true);
	log_consumers(s);
	tracer__stack_cache_stats(s->tracer, &s->stack_cache.hits, &s->stack_cache.walks);
	log_debug("stacks: %llu from the cache, %llu walked",
		  (unsigned long long)s->stack_cache.hits, (unsigned long long)s->stack_cache.walks);
	for (unsigned i = 0; i < s->nr_consumers; i++) {
		HASH_ITER(hh, s->consumers[i].targets, t, tmp)
			tracer__detach(s->tracer, t->pid);
	}
	tracer__drain(s->tracer);
	if (s->sample_bytes)
		thread_calls_at_stop(s);
	s->clock = monotonic_ns() / 1e9;
	for (unsigned i = 0; i < s->nr_consumers; i++) {
		s->consumers[i].clock = s->clock;
		HASH_ITER(hh, s->consumers[i].targets, t, tmp)
			sample_final_total(s, t);
	}
	/* Every call is read: the node's sum takes the rest of each consumer's changes. */
	for (unsigned i = 0; i < s->nr_consumers; i++) {
		node_total__publish(&s->node, i, &s->consumers[i].node_log, UINT64_MAX);
		if (s->consumers[i].node_log.out_of_memory)
			log_info("warning: out of memory: the node's sum misses calls");
	}
	total_series__add(&s->node_samples, s->clock - s->started, (int64_t)s->node.bytes,
			  (int64_t)s->node.peak_bytes, true);
}

const struct node_total *session__node(const struct session *s,
				       const struct total_series **samples)
{
	*samples = &s->node_samples;
	return &s->node;
}

size_t session__live_targets(struct session *s)
{
	size_t live = 0;

	for (unsigned i = 0; i < s->nr_consumers; i++) {
		struct consumer *c = &s->consumers[i];
		const struct target *t, *tmp;

		consumer_lock(c);
		HASH_ITER(hh, c->targets, t, tmp)
			live += !t->exited && !t->untraced;
		consumer_unlock(c);
	}
	return live;
}

void session__mark_exited(struct session *s, pid_t pid, int wstatus)
{
	struct consumer *c = consumer_of(s, pid);
	struct target *t;

	consumer_lock(c);
	/* Its exit event is likely queued: it carries the status, and its last calls. */
	if (s->stopped)
		tracer__drain(s->tracer);
	else
		while (consumer_batch(c) >= TRACER_BATCH_EVENTS)
			;
	shared_lock(s);
	t = target_of(s, pid);
	if (t)
		target_exited(s, t, wstatus, wstatus >= 0);
	shared_unlock(s);
	consumer_unlock(c);
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
	size_t n = 0, i = 0;
	struct target *t, *tmp;

	session__read_lock(s);
	for (unsigned k = 0; k < s->nr_consumers; k++)
		n += HASH_COUNT(s->consumers[k].targets);
	for (t = s->ended; t; t = t->next_ended)
		n++;
	free(s->sorted);
	s->sorted = calloc(n ? n : 1, sizeof(*s->sorted));
	if (!s->sorted) {
		session__read_unlock(s);
		return 0;
	}
	for (unsigned k = 0; k < s->nr_consumers; k++) {
		HASH_ITER(hh, s->consumers[k].targets, t, tmp) {
			if (!t->untraced) /* --mpi: launchers are followed, not reported */
				s->sorted[i++] = t;
		}
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
	session__read_unlock(s);
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

struct ht_losses session__kernel_losses(struct session *s, const struct target *t)
{
	return kernel_losses(s, t);
}

uint64_t session__holds_skipped(struct session *s, const struct target *t)
{
	return kernel_losses(s, t).holds_skipped + t->holds_ran_out;
}

uint64_t session__events(const struct session *s)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < s->nr_consumers; i++)
		n += __atomic_load_n(&s->consumers[i].events, __ATOMIC_RELAXED);
	return n;
}

void session__watch(struct session *s, int fd)
{
	s->watched_fd = fd;
}

unsigned session__consumers(const struct session *s)
{
	return s->nr_consumers;
}

struct ring_fill session__ring_fill(const struct session *s, unsigned consumer)
{
	return tracer__ring_fill(s->tracer, consumer);
}

struct session_figures session__figures(struct session *s)
{
	struct session_figures f = {
		.consumers = s->nr_consumers,
		.holds = tracer__holds(s->tracer),
		.stack_map_entries = tracer__stacks_capacity(s->tracer),
		.stack_map_peak = __atomic_load_n(&s->stack_ids_peak, __ATOMIC_RELAXED),
		.shared_stacks = __atomic_load_n(&s->shared_given, __ATOMIC_RELAXED),
		.forgotten_stacks = __atomic_load_n(&s->shared_forgotten, __ATOMIC_RELAXED),
		.cpu_seconds = own_cpu_seconds(),
	};

	for (unsigned i = 0; i < s->nr_consumers; i++)
		f.inline_stacks += __atomic_load_n(&s->consumers[i].inline_stacks,
						   __ATOMIC_RELAXED);
	return f;
}

struct consumer_figures session__consumer_figures(const struct session *s, unsigned consumer)
{
	return (struct consumer_figures){
		.events = __atomic_load_n(&s->consumers[consumer].events, __ATOMIC_RELAXED),
		.ring = tracer__ring_fill(s->tracer, consumer),
	};
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
