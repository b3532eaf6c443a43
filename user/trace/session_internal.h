/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What session.c and programs.c share: the session, and the way to its targets. */
#ifndef HEAPTAP_SESSION_INTERNAL_H
#define HEAPTAP_SESSION_INTERNAL_H

#include <pthread.h>
#include "movement.h"
#include "session_owner.h"
#include "session.h"
#include "symcache.h"
#include "tracer.h"
#include "custom_allocs.h"
#include "unwind_maps.h"

/*
 * A consumer: the thread that drains one shard's ring and owns that shard's processes
 * (ht_shard_of). Its targets change only on its thread, or under its lock; a process's
 * program (links, tables, naming) changes only under the session's shared lock too.
 */
struct consumer {
	struct session *s;
	unsigned idx;
	pthread_t thread;
	bool running;
	pthread_t holds_thread; /* serves its processes' held loader events (consumer_on_hold) */
	bool holds_running;
	/*
	 * Held while a batch of events is handled; a reader of its targets' accounts (top, the
	 * agent, the report) takes it. Taken before the shared lock, never after.
	 */
	pthread_mutex_t lock;
	struct target *targets; /* live, by pid */
	uint64_t events;	/* delivered, of every kind */
	uint64_t inline_stacks; /* calls whose stack came without an id (the map was full) */
	double clock;		/* monotonic seconds, as of its last batch */
	uint64_t last_call_ns;	/* the time of the last call event it read */
	struct node_log node_log; /* its batch's changes to the node's sum */
	double next_sample, rss_next;
	int err;		/* what stopped it (-errno), or 0 */
	bool yield;		/* a reader waits: this batch ends at the next event */
};

struct session {
	struct tracer *tracer;
	struct symcache *cache;
	enum attribution_rule rule;
	bool mpi_only;
	bool detailed_stacks; /* --stacks: keep each frame's offset, symbol and line */
	uint64_t tree_budget;	/* bytes of ended processes' call trees, at most */
	uint64_t ended_tree_bytes;
	struct unwind_maps *unwind; /* NULL: frame pointers only */
	struct node_stacks *node_stacks; /* the stacks its processes share, named once */
	struct consumer *consumers; /* one per shard of processes */
	unsigned nr_consumers;
	bool stopping, stopped;	    /* the consumers are told to end; they have */
	bool read_rest;		    /* ending, each reads what its ring still holds */
	unsigned holds_waiting;	    /* holds waiting for the shared lock: consumers let them in */
	unsigned readers_waiting;   /* session__read_lock waiting: consumers cut their batch */
	/*
	 * What every consumer shares: the symbol cache, the unwind tables, the probes' links,
	 * the holds, the ended and untraced processes, the stack ids to delete. Recursive: a
	 * handler that holds it may call one that takes it.
	 */
	pthread_mutex_t shared;
	/*
	 * The ended targets' list and what budget trims of them: taken inside the shared lock
	 * by whoever ends a target, and alone (after the consumers' locks) by a reader, so
	 * that a reader keeps no hold waiting.
	 */
	pthread_mutex_t ended_lock;
	struct target *ended;	    /* exited or exec'd, newest first (pids may repeat) */
	struct untraced *untraced;
	struct dead_ids dead_ids;   /* stack ids of ended programs, not yet deleted */
	/*
	 * The stack ids the node's processes share: they stay while a traced process may meet
	 * them again; once none is traced (an agent between jobs) and they fill half the map,
	 * they go at once with their answers (forget_shared_stacks).
	 */
	uint64_t shared_given;	   /* shared ids given since they went last */
	uint64_t shared_keep;	   /* shared ids kept whatever: more go when quiet */
	uint64_t shared_forgotten; /* shared ids deleted so, for the report */
	uint64_t stack_ids_used, stack_ids_peak; /* ids in the BPF stacks map, now and at most */
	struct target **sorted;
	struct alloc_spec *allocators; /* --allocator APIs */
	size_t nr_allocators;
	char problem[512]; /* what made the session unable to go on (session__problem) */
	double rss_started; /* the RSS samples' t = 0 (CLOCK_MONOTONIC seconds) */
	int watched_fd;	    /* session__poll returns when it polls readable; -1: none */
	uint64_t serials;
	size_t live_blocks_limit; /* per process (--live-blocks) */
	uint64_t sample_bytes;	  /* --sample-bytes (0: exact) */
	double sample_interval;	  /* seconds between samples of outstanding bytes (-i) */
	double clock;		  /* monotonic seconds, as of the last poll or stop */
	double started;		  /* the clock when tracing started: samples' t = 0 */
	struct stack_cache_stats stack_cache; /* read when tracing stops */
	struct node_total node; /* every consumer's targets' owner totals, added up (its lock) */
	struct total_series node_samples;     /* node.bytes every -i seconds */
};

/* The consumer that owns pid's events and account. */
static inline struct consumer *consumer_of(struct session *s, pid_t pid)
{
	return &s->consumers[ht_shard_of((uint32_t)pid, s->nr_consumers)];
}

/* The shared lock (see struct session), and a consumer's. */
static inline void shared_lock(struct session *s)
{
	pthread_mutex_lock(&s->shared);
}

static inline void shared_unlock(struct session *s)
{
	pthread_mutex_unlock(&s->shared);
}

static inline void consumer_lock(struct consumer *c)
{
	pthread_mutex_lock(&c->lock);
}

static inline void consumer_unlock(struct consumer *c)
{
	pthread_mutex_unlock(&c->lock);
}

/* target.c: a target's life in its consumer's table. */
struct target *new_target(struct session *s, pid_t pid);
void free_target(struct target *t);
/* Delete the ids of ended programs from the BPF stacks map (their own lock, not the shared one). */
void delete_dead_ids(struct session *s);
/*
 * An event's stack id, if it gave a new one (HT_F_STACK_NEW in flags): the target's own
 * (t: NULL if none), or the node's.
 */
void own_stack_id(struct session *s, struct target *t, __u64 id, __u32 flags);
/*
 * The stack of id as t's process runs it: from the stacks map, a shared one placed at its
 * addresses (symbolizer__place). 0, or -ENOENT.
 */
int stored_stack(struct target *t, __u64 id, struct ht_stack *out);
/* A target that never got going (a failed attach): nothing of it stays. */
void drop_target(struct session *s, struct target *t);
/* t is gone (status: its wait status; known: it was seen): keep its report, end it. */
void target_exited(struct session *s, struct target *t, int status, bool known);
/*
 * Drop what the kernel and the caches keep for t's program (tables, stack ids, symbolizer);
 * its report, and which allocator it had, stay. Probes belong to the process (they stay
 * across an exec, see tracer.h) and go when it ends.
 */
void forget_program(struct session *s, struct target *t);
/* The last sample of t's total (it ends, or tracing stops): on its consumer's clock. */
void sample_final_total(struct session *s, struct target *t);
/* t's program ended (exit, or exec with calls to report): keep its report, forget it. */
void end_target(struct session *s, struct target *t);
struct target *target_of(struct session *s, pid_t pid);
/*
 * A symbolizer for the target: its stacks recorded in its own records (its call tree and
 * --stacks), those the node shares named with the node's other processes. NULL, errno.
 */
struct symbolizer *new_symbolizer(struct session *s, struct target *t);

/* consumer.c: the threads, and the tracer's callbacks (shard: the consumer's index). */
int consumer_on_event(void *ctx, unsigned shard, const void *data, size_t size);
int consumer_on_hold(void *ctx, unsigned shard, const void *data, size_t size);
/* Deliver c's queued events and take the samples due; under c's lock. Events, or -errno. */
int consumer_batch(struct consumer *c);
int consumers__start(struct session *s);
/* Tell every consumer to end (read_rest: once its ring is read to its end), and wait. */
void consumers__stop(struct session *s, bool read_rest);

/* --sample-bytes: an exiting thread's exact calls (its event's), in its process's figures. */
void thread_calls_exited(struct session *s, const struct ht_exit_event *ev);
/* --sample-bytes, once stopped and drained: the live threads' exact calls. */
void thread_calls_at_stop(struct session *s);

/* programs.c: a target's program changes (exec, loader events) and new processes. */
void handle_exec(struct session *s, const struct ht_libs_event *ev);
void handle_libs_changed(struct session *s, const struct ht_libs_event *ev);
/* A held loader event, ahead of its place in the stream (see tracer__on_holds). */
/* maps: the process's, read as it was stopped (the caller clears what is left of them). */
void handle_hold_early(struct session *s, const struct ht_libs_event *ev,
		       struct procmaps *maps);
void handle_fork(struct session *s, const struct ht_fork_event *ev);
void handle_launcher(struct session *s, const struct ht_fork_event *ev);

#endif
