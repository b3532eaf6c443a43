/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The end-of-run reports: text (the answer first, or DMATP's sections), and JSON in the
 * schema "heaptap": 2. */
#ifndef HEAPTAP_REPORT_H
#define HEAPTAP_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "calltree.h"
#include "report_frames.h"
#include "session.h"
#include "run_model.h"
#include "stored_owner_report.h"

struct process_facts;

/* How run's and attach's text report is laid out. */
struct text_opts {
	bool dmatp;    /* --dmatp: DMATP's sections, as heaptap has always printed them */
	bool bytes;    /* --bytes: sizes as exact counts of bytes */
	bool mappings; /* --mappings: the OS view's stacks too */
	bool full;     /* --full: an MPI job's ranks' own sections, before its summary */
	bool verbose;  /* -v: what unwinding and naming cost (budgets, unwind tables) */
	bool mpi;      /* --mpi: the processes are a job's ranks, however few */
	bool attached; /* attach: the processes ran before tracing began */
};

/*
 * The text report (report_text.c): each process's summary and tables, the processes not
 * traced, and for an MPI job the summary across its ranks; o->dmatp: report_dmatp.
 */
void report_text(FILE *out, struct session *s, const struct text_opts *o);
/* DMATP's layout (report_dmatp.c): the processes, those not traced, the budgets. */
void report_dmatp(FILE *out, struct session *s);
/* The processes only, without what unwinding cost (top -b snapshots). */
void report_text_processes(FILE *out, struct session *s);
/* report_summary.c: a process's heading and at most a dozen lines that answer first. */
void report_summary_text(FILE *out, const struct target *t, const struct process_facts *pf,
			 const struct text_opts *o);
/*
 * report_notes.c: ", exited with status 0" and the like, after a process's heading (false:
 * nothing, it still runs; oom: say the OOM killer's choice); the lines on holds skipped and
 * updates dropped, and on an allocator whose block sizes are unknown, each when it applies.
 */
bool report_ending_text(FILE *out, const struct target *t, const struct process_facts *pf,
			bool oom);
void report_tracing_notes(FILE *out, const struct process_facts *pf);
void report_allocator_note(FILE *out, const struct target *t);
/* report_tables.c: its threads, libraries and functions, and its mappings by kind. */
void report_tables_text(FILE *out, const struct target *t, const struct process_facts *pf,
			const struct text_opts *o);
/* report_diagnostics.c: the processes not traced, if any; unwind tables; symbols. */
void report_untraced_text(FILE *out, struct session *s);
void report_unwind_tables_text(FILE *out, struct session *s);
void report_symbols_text(FILE *out, struct session *s);
/*
 * report_job.c: the summary across the ranks heaptap report prints of the session's JSON
 * report. 0, or -errno (nothing printed).
 */
int report_job_text(FILE *out, struct session *s);
/* The report as JSON (pretty). Write errors show on out (ferror, fclose). */
void report_json(FILE *out, struct session *s);
/*
 * Every distinct stack of every process as JSON lines (--stacks): pid, calls, complete,
 * frames (innermost first: library, offset, function). Write errors show on out.
 */
void report_stacks(FILE *out, struct session *s);
/*
 * The report without what the job's summary does not read (call trees, allocation sites
 * but the peak's, mappings): the summary of an MPI job's text report reads it back.
 */
void report_json_for_summary(FILE *out, struct session *s);
/* The same report on one line (top -b --json). */
void report_json_line(FILE *out, struct session *s);

/* The OS view of a process: nothing (NULL) when it made no mapping call heaptap saw. */
void report_mappings_text(FILE *out, const struct mapping_stats *ms);
json_object *report_mappings_json(const struct mapping_stats *ms);

/* How --tree shows a call tree. */
struct tree_opts {
	bool show;	   /* --tree */
	unsigned depth;	   /* --depth: levels below the top shown; 0 for all */
	const char *under; /* --under: start at this function, its occurrences merged */
};

/*
 * One frame of a stack as --stacks names it: library, function, file, line, inlined; and
 * with detailed (records kept for --stacks) its offset and raw symbol.
 */
json_object *report_frame_json(const struct stack_frame *fr, bool detailed);
/*
 * Sampled: are all its threads' calls counted exactly (not estimated)? Not when any of its
 * events was lost: a thread's exit event carries its counts, the table of counts may fill.
 */
bool report_thread_calls_exact(const struct target *t, const struct process_facts *pf);
/*
 * The process's "sampled": null when every call was traced; with --sample-bytes R,
 * {"bytes": R, ...} saying what is estimated, and what is exact.
 */
void report_sampled_json(json_object *p, const struct target *t,
			 const struct process_facts *pf);
/*
 * The run's "node": what its traced processes (targets, n) held at once, its peak and the
 * sites that held it then, its samples written by samples.
 */
json_object *report_node_json(struct session *s, struct target **targets, size_t n,
			      json_object *(*samples)(const struct total_series *));
/*
 * report_owner.c: the owner figures of a process (outstanding, peak, allocated,
 * freed_before_tracing, live_blocks) added to its JSON object p; and as text sections,
 * each site with --site-depth frames (owner_text.h).
 */
/*
 * lists: with its sites' outstanding and allocated lists. names: the report's frame table
 * the sites' stacks go in (NULL: their frames in place).
 */
void report_owner_json(json_object *p, const struct target *t, bool lists,
		       struct frame_table *names);
void report_owner_text(FILE *out, const struct target *t);
/* report_allocators.c: processes[].allocators, and a text section per --allocator API. */
json_object *report_allocators_json(const struct target *t);
void report_allocators_text(FILE *out, const struct target *t);
/* Every block's usable size was known: glibc's headers, or the allocator's classes. */
bool report_usable_known(const struct target *t);

/* The balance's fields (BAL in the schema) added to o. */
void report_json_balance(json_object *o, const struct balance *b);
/*
 * The tree as the schema's calltree: its nodes, parents first, in the tree's order, down
 * to depth levels (0: all). Written from the tree when the object is serialized: the tree
 * and names must live until then. names: schema 2's rows, their frames named in it (before
 * it is written); NULL: schema 1's paths.
 */
json_object *report_calltree_json(const struct calltree *t, unsigned depth,
				  struct frame_table *names);
/*
 * The tree as text, indented, sorted by max, as o asks (--depth, --under). 0, or -ENOMEM
 * (nothing printed).
 */
int report_calltree_text(FILE *out, const struct calltree *t, const struct tree_opts *o);
/* Every target's tree as text, each after a line naming the process. */
void report_trees(FILE *out, struct session *s, const struct tree_opts *o);
/* The line naming a process before its tree. */
void report_tree_heading(FILE *out, int pid, int rank, int world_size, const char *command);

void report_text_run(FILE *out, const struct report_run *run);
/* One process of a report read back, as its text section (heaptap report --rank). */
void report_text_process(FILE *out, const struct target *t, const struct process_facts *pf);
/* The run as JSON in the report's schema, pretty or on one line. */
void report_json_run(FILE *out, const struct report_run *run, bool one_line);

/*
 * A report's file, opened when heaptap starts, so that a bad path fails before any
 * target is touched, and written at the end. A file that exists keeps its contents until
 * the report replaces them; one heaptap created and never wrote is removed.
 */
struct report_file {
	const char *path;
	FILE *f;      /* NULL: not open */
	bool created; /* heaptap made it */
	bool written; /* a report was begun in it */
};

/* Open path for writing, creating it if missing, without emptying it. 0 or -errno. */
int report_file__open(struct report_file *rf, const char *path);
/* Do two open report files name the same regular file? */
bool report_file__same(const struct report_file *a, const struct report_file *b);
/* A file an option asked for: path NULL when it did not. */
struct report_output {
	struct report_file *rf;
	const char *path, *option; /* the option, as the user gave it: "-o", "--json"... */
};

/*
 * Open each asked-for output, refusing two that name one file: a bad path fails before
 * any work. On failure, one line naming the option, and those opened are closed. 0 or
 * -errno (-EEXIST: two name one file).
 */
int report_outputs__open(const struct report_output *outs, size_t nr);
/* The stream to write the report to, emptied first (a regular file). NULL with errno. */
FILE *report_file__begin(struct report_file *rf);
/* Close it: 0, or -errno if what was written did not reach the file. NULL and closed ok. */
int report_file__close(struct report_file *rf);

#endif
