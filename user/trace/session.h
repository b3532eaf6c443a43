/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A tracing session: the traced processes, and the path of each event from the tracer
 * through the symbolizer to the accountant.
 */
#ifndef HEAPTAP_SESSION_H
#define HEAPTAP_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <uthash.h>
#include "accountant.h"
#include "calltree.h"
#include "owner.h"
#include "oom_record.h"
#include "mapping_stats.h"
#include "heaptap_types.h"
#include "held_maps.h"
#include "allocator.h"
#include "alloc_spec.h"
#include "attribution.h"
#include "budget.h"
#include "rank.h"
#include "stack_ids.h"
#include "stack_records.h"
#include "symbolizer.h"
#include "tracer.h"
#include "total_series.h"
#include "unwind_maps.h"

struct target {
	pid_t pid;
	uint64_t serial;   /* order of creation: a pid's images, and reused pids, in order */
	pid_t parent;	   /* the target that started it (--follow), else 0 */
	struct mpi_identity mpi; /* rank -1: not an MPI rank */
	char command[256]; /* its command line, arguments space-separated */
	/*
	 * Its real uid when heaptap first saw it, or at its exec (a later setuid() is not
	 * followed): from the kernel's event where there is one, as a short-lived process is
	 * gone before /proc is read. (uid_t)-1 when unknown.
	 */
	uid_t uid;
	bool exited;
	bool exec;	   /* this image ended in an exec: its report is as it was then */
	int exit_code;	   /* with exited: its wait status (exit code, or killing signal) */
	bool exit_known;   /* exit_code was seen (not when its exit event was lost) */
	bool probed;	   /* the allocator probes are in place */
	bool held;	   /* stopped at exec and loader events until probed */
	bool untraced;	   /* followed for its children only (--mpi, and it has no rank) */
	struct allocator alloc;
	struct symbolizer *symbolizer;
	struct held_maps *held_maps; /* read at loader events handled ahead of the stream */
	struct process_stats stats;
	struct stack_ids stack_ids;  /* the frames of its call events */
	struct stack_records stacks; /* every distinct stack: the tree's, and --stacks */
	struct calltree tree;
	struct owner owner;  /* who holds its memory: live blocks by allocation site */
	struct oom_record oom; /* chosen by the OOM killer: its owner view then */
	struct custom_allocs *custom; /* --allocator APIs' accounts (custom_allocs.h) */
	uint64_t usable_unknown; /* blocks whose usable size the allocator's classes cannot tell */
	double owner_since;  /* when its blocks began to be tracked (session clock) */
	double peak_seconds; /* when the owner figures last peaked, seconds after owner_since */
	struct mapping_stats mappings; /* the OS view: mmap, munmap, mremap, brk, madvise */
	/* Its heap's max and the time when its resident peak (VmHWM) was last read. */
	int64_t rss_peak_heap_max;
	double rss_peak_read;
	struct total_series samples;   /* its total every -i seconds (processes[].samples) */
	uint64_t incomplete_stacks;
	uint64_t unsupported_unwinds; /* of those, cut at an unwind rule heaptap cannot follow */
	uint64_t lost_events; /* lost in userspace: unreadable blocks, unresolvable stacks */
	/* Stops the guardian ended at its bound before heaptap read them: ran on unprepared. */
	uint64_t holds_ran_out;
	bool launcher; /* an MPI launcher's program (mpi_launcher_names): held only until probed */
	bool tree_dropped;    /* ended, its tree freed to keep ended trees within the budget */
	uint64_t tree_lost;   /* calls counted, but not in the call tree (out of memory) */
	struct ht_losses kernel_losses; /* taken from the kernel when it ended */
	struct target *next_ended;
	UT_hash_handle hh;
};

/* A process heaptap could not trace, and why (the reports list them). */
struct untraced {
	pid_t pid;
	char command[256];
	char reason[128];
	struct untraced *next;
};

struct session;

struct session_opts {
	enum attribution_rule rule;
	bool follow;   /* trace the processes that targets start, from their exec */
	bool mpi_only; /* trace only processes that carry an MPI rank (follow the rest) */
	bool unwind_tables; /* unwind by .eh_frame tables, else by frame pointers only */
	bool detailed_stacks; /* keep what --stacks prints of every distinct stack */
	uint64_t tree_budget; /* bytes of call trees of ended processes (--tree-budget) */
	struct budget_limits table_budget;  /* bytes of unwind rows (budget.h) */
	struct budget_limits symbol_budget; /* bytes of symbols and call sites */
	size_t live_blocks;  /* live blocks kept per process (--live-blocks; 0: the default) */
	uint64_t sample_bytes; /* --sample-bytes R: sample calls by bytes (0: every call) */
	double sample_interval; /* seconds between samples of outstanding bytes (-i) */
	const struct alloc_spec *allocators; /* --allocator APIs (alloc_spec.h), copied */
	size_t nr_allocators;
	bool warm_own_libraries; /* targets start here: read heaptap's libc and loader early */
	unsigned consumers;  /* consumer threads, one ring each (--consumers); 0: one */
	uint64_t ring_bytes; /* each ring's size; 0: the tracer's default */
};

/*
 * What every traced process held at once (node_total.h), and its samples every -i
 * seconds. Its peak's "when" is the session clock when the event was read, seconds since
 * tracing started.
 */
const struct node_total *session__node(const struct session *s,
				       const struct total_series **samples);

/* 0 or -errno; -EPERM means heaptap lacks the privileges to load BPF. */
int session__new(const struct session_opts *opts, struct session **out);
/*
 * Why the session cannot go on, as one line (a spec names a function no object of a
 * traced process defines), or NULL. The command stops and exits with status 2.
 */
const char *session__problem(const struct session *s);
void session__free(struct session *s);

/*
 * Attach to a running process. 0, or -ESRCH (no such process), -EINVAL (a kernel thread),
 * -ENOENT (no malloc to probe), -EPERM, or another -errno.
 */
int session__attach(struct session *s, pid_t pid);
/*
 * Trace a child that is about to exec path (the ELF file the kernel will load): it is
 * held at its exec, and then at loader events, until the allocator probes are in place.
 * 0, or -ENOEXEC / -ENOENT when path has no malloc heaptap can probe, or -errno.
 */
int session__expect_exec(struct session *s, pid_t pid, const char *path);

/*
 * Follow a running process without tracing it: the processes it starts from now on are
 * traced (or, with mpi_only, those that carry a rank). 0 or -errno.
 */
int session__follow(struct session *s, pid_t pid);
/* Follow every MPI launcher that starts (mpi_launcher_names), from its exec. */
void session__follow_launchers(struct session *s);
/* Is pid a target, traced or followed? */
bool session__knows(struct session *s, pid_t pid);

/*
 * The consumer threads deliver events: wait up to timeout_ms, or until the watched
 * descriptor polls readable (a pidfd: the command exited). 0, or what stopped a consumer
 * (-errno).
 */
int session__poll(struct session *s, int timeout_ms);
/* The descriptor session__poll also waits on (-1: none); the caller keeps it open. */
void session__watch(struct session *s, int fd);
/* Remove every probe and deliver what is queued. */
void session__stop(struct session *s);
/* Traced targets still running (not seen to exit). */
size_t session__live_targets(struct session *s);
/* A target is gone (reaped with wstatus, or -1 when unknown), its exit event maybe lost. */
void session__mark_exited(struct session *s, pid_t pid, int wstatus);

/* The targets in order of pid, their groups sorted. Valid until the next call. */
size_t session__targets(struct session *s, struct target ***out);
/* Events lost for t, in the kernel and here. */
uint64_t session__lost_events(struct session *s, const struct target *t);
/*
 * Of those, what the kernel dropped: with t's ring full (its consumer behind), without a
 * per-thread slot, and the holds skipped. The process is never stopped for any of them.
 */
struct ht_losses session__kernel_losses(struct session *s, const struct target *t);
/* Times t was not stopped at an exec or loader event because heaptap was too slow. */
uint64_t session__holds_skipped(struct session *s, const struct target *t);
/* The processes heaptap could not trace, newest first. */
const struct untraced *session__untraced(const struct session *s);
/* Record that pid could not be traced, and why (one line, also logged). */
void session__note_untraced(struct session *s, pid_t pid, const char *reason);
enum attribution_rule session__rule(const struct session *s);
/* The unwind tables built, one per file (none with --unwind fp). */
/* How the BPF side found the calls' stacks: from its per-thread cache, or by a walk. */
struct stack_cache_stats {
	uint64_t hits, walks;
};
struct stack_cache_stats session__stack_cache(const struct session *s);
size_t session__unwind_files(const struct session *s, const struct unwind_file **files);
/* The symbol budget, and every file's share of it (symcache.h). */
const struct symcache *session__symcache(const struct session *s);
/* The unwind table budget (NULL with --unwind fp). */
const struct budget *session__table_budget(const struct session *s);
/* Events delivered so far. */
uint64_t session__events(const struct session *s);
/*
 * The consumers deliver events on threads of their own: a reader of the targets' accounts
 * while tracing goes on (top, the agent) holds this around its reading. The report after
 * session__stop needs none.
 */
void session__read_lock(struct session *s);
void session__read_unlock(struct session *s);
/* The consumer threads, and each one's ring (-v, the JSON report). */
unsigned session__consumers(const struct session *s);
struct ring_fill session__ring_fill(const struct session *s, unsigned consumer);
/* What the consumers did and what their tables held (the JSON report's "consumers"). */
struct consumer_figures {
	uint64_t events;	/* this consumer's */
	struct ring_fill ring;
};
struct session_figures {
	unsigned consumers;
	struct tracer_holds holds; /* the stops heaptap ended itself */
	uint32_t stack_map_entries;
	uint64_t stack_map_peak;   /* ids held at once, at most */
	uint64_t inline_stacks;	   /* calls whose stack came without an id (the map full) */
	uint64_t shared_stacks;	   /* ids held now that the node's processes share */
	uint64_t forgotten_stacks; /* shared ids deleted while no process was traced */
	double cpu_seconds;	   /* heaptap's own, all its threads, so far */
};
struct session_figures session__figures(struct session *s);
struct consumer_figures session__consumer_figures(const struct session *s, unsigned consumer);

#endif
