/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What session.c and programs.c share: the session, and the way to its targets. */
#ifndef HEAPTAP_SESSION_INTERNAL_H
#define HEAPTAP_SESSION_INTERNAL_H

#include "movement.h"
#include "session.h"
#include "symcache.h"
#include "tracer.h"
#include "custom_allocs.h"
#include "unwind_maps.h"

struct session {
	struct tracer *tracer;
	struct symcache *cache;
	enum attribution_rule rule;
	bool mpi_only;
	bool detailed_stacks; /* --stacks: keep each frame's offset, symbol and line */
	uint64_t tree_budget;	/* bytes of ended processes' call trees, at most */
	uint64_t ended_tree_bytes;
	struct unwind_maps *unwind; /* NULL: frame pointers only */
	struct target *targets;	    /* live, by pid */
	struct target *ended;	    /* exited or exec'd, newest first (pids may repeat) */
	struct untraced *untraced;
	struct dead_ids dead_ids;   /* stack ids of ended programs, not yet deleted */
	struct target **sorted;
	struct alloc_spec *allocators; /* --allocator APIs */
	size_t nr_allocators;
	char problem[512]; /* what made the session unable to go on (session__problem) */
	uint64_t events; /* delivered, of every kind */
	double rss_started, rss_next; /* RSS samples (CLOCK_MONOTONIC seconds; 0: none yet) */
	uint64_t serials;
	size_t live_blocks_limit; /* per process (--live-blocks) */
	uint64_t sample_bytes;	  /* --sample-bytes (0: exact) */
	double sample_interval;	  /* seconds between samples of outstanding bytes (-i) */
	double clock;		  /* monotonic seconds, as of the last poll */
	double next_sample;
	double started;		  /* the clock when tracing started: samples' t = 0 */
	struct stack_cache_stats stack_cache; /* read when tracing stops */
	struct node_total node;		      /* every target's owner total, added up */
	struct total_series node_samples;     /* node.bytes every -i seconds */
};

struct target *new_target(struct session *s, pid_t pid);
/*
 * Drop what the kernel and the caches keep for t's program (tables, stack ids, symbolizer);
 * its report, and which allocator it had, stay. Probes belong to the process (they stay
 * across an exec, see tracer.h) and go when it ends.
 */
void forget_program(struct session *s, struct target *t);
/* t's program ended (exit, or exec with calls to report): keep its report, forget it. */
void end_target(struct session *s, struct target *t);
struct target *target_of(struct session *s, pid_t pid);
/* Where the target's stacks are recorded (for its call tree and --stacks). */
struct stack_records *stack_records_of(struct session *s, struct target *t);

/*
 * The blocks a call released and returned, into t's owner figures; moved->delta gains
 * what only the live-block table knows (sizes under allocators other than glibc).
 */
void track_owner(struct session *s, struct target *t, const struct ht_call_event *ev,
		 enum ht_func func, struct stack_record *site, struct movement *moved);
/*
 * Every interval: each live target's sites' outstanding bytes, for the leak test, and its
 * total (processes[].samples).
 */
void sample_owners(struct session *s);
/* t's total now, as its series' last sample so far (it ended, or tracing stops). */
void sample_total_now(struct session *s, struct target *t);

/* --sample-bytes: an exiting thread's exact calls (its event's), in its process's figures. */
void thread_calls_exited(struct session *s, const struct ht_exit_event *ev);
/* --sample-bytes, once stopped and drained: the live threads' exact calls. */
void thread_calls_at_stop(struct session *s);

/* programs.c: a target's program changes (exec, loader events) and new processes. */
void handle_exec(struct session *s, const struct ht_libs_event *ev);
void handle_libs_changed(struct session *s, const struct ht_libs_event *ev);
/* A held loader event, ahead of its place in the stream (see tracer__on_holds). */
void handle_hold_early(struct session *s, const struct ht_libs_event *ev);
void handle_fork(struct session *s, const struct ht_fork_event *ev);
void handle_launcher(struct session *s, const struct ht_fork_event *ev);

#endif
