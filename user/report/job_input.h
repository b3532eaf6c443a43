/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A job read back, whatever heaptap wrote it as: one JSON report (run, attach, top -b
 * --json), several (one per rank), or a collector's database run. Each process becomes a
 * rank with its totals, libraries, functions, samples over time and (owner view) the sites
 * that held its peak; the summary, the HTML page and --rank work from this one interface.
 */
#ifndef HEAPTAP_JOB_INPUT_H
#define HEAPTAP_JOB_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>
#include "accountant.h"

/* A library's (function NULL) or a function's balance in one rank. */
struct job_group {
	char *library, *function;
	struct balance bal;
};

/* A thread's balance in one rank. */
struct job_thread {
	int64_t tid;
	char *name;
	struct balance bal;
};

/* The rank's total at t seconds (from the start of tracing, or of the collector's run). */
struct job_sample {
	double t;
	int64_t current, max;
};

struct job_rank {
	int rank; /* its MPI rank; in a job of processes without one, its place (0, 1...) */
	int pid, world_size; /* world_size -1: not said */
	char *host;	     /* NULL: not recorded (reports of run and attach) */
	char *command;
	const char *source; /* the file it came from (NULL: a database) */
	struct balance total;
	uint64_t lost_events, incomplete_stacks;
	uint64_t sample_bytes; /* --sample-bytes R: its figures are estimates (0: exact) */
	bool exited;
	int exit_status, signal; /* how it ended; -1: not known */
	char *job;	     /* the launcher's job id; NULL: none */
	int local_rank;	     /* -1: not said */
	size_t nr_threads, nr_libraries, nr_functions, nr_samples;
	struct job_thread *threads;
	struct job_group *libraries, *functions;
	struct job_sample *samples; /* in time order */
	/* The owner view: {"bytes", "blocks", "sites": [{"frames", "blocks", "bytes"}]}, the
	 * sites that held most at the rank's peak (a reference; NULL without the owner view). */
	json_object *peak;
	json_object *oom; /* the report's "oom": chosen by the OOM killer (NULL: not) */
};

struct job_untraced {
	int pid;
	char *command, *reason;
};

/*
 * A host's node total, from a report of one heaptap that traced the host's processes
 * together (run, attach, run --mpi): the report's "node".
 */
struct job_node {
	char *host;	  /* NULL: not recorded */
	json_object *node; /* {"peak": {"bytes", "blocks", "seconds", "sites"}, ...} */
	size_t reports;	  /* reports naming this host: past 1, their sum at once is unknown */
};

struct job {
	char *attribution; /* "entry" or "caller" */
	int64_t run;	   /* the database's run id; 0: files */
	char *job_id;	   /* the launcher's job id; NULL: none */
	const char *job_source; /* the file that named it first (NULL: a database) */
	bool mpi;	   /* the ranks are MPI ranks (else processes numbered in order) */
	size_t nr;
	struct job_rank *ranks; /* by rank */
	size_t nr_other; /* processes without a rank beside the ranks (mpirun, a shell) */
	size_t nr_untraced;
	struct job_untraced *untraced; /* processes heaptap could not trace */
	size_t nr_nodes;
	struct job_node *nodes; /* hosts whose reports carry "node", in reading order */
};

/*
 * Read the job in paths[0..n): JSON reports of one job (one file or one per rank), or one
 * collector database (run_id: its run, 0 for the newest). 0, or -errno after one line on
 * standard error saying what is wrong: not a heaptap report, truncated, two jobs' files, a
 * rank twice, an empty database, no such run.
 */
int job__read(const char *const *paths, size_t n, int64_t run_id, struct job *out);
/*
 * The job in one report's JSON text (size bytes; changed in place), named name in
 * messages: a session's own report, summed up as heaptap report would sum up its file.
 * 0, or -errno after one line on standard error.
 */
int job__read_text(char *text, size_t size, const char *name, struct job *out);
void job__clear(struct job *j);
/* The rank numbered rank, or NULL. */
const struct job_rank *job__rank(const struct job *j, int rank);
/*
 * The rank's own full report (DMATP's sections: overall, threads, libraries, functions),
 * as heaptap report --rank prints it; json: the report's JSON (schema "heaptap": 1, that
 * process only). 0 or -ENOMEM.
 */
int job_rank_report(FILE *out, const struct job *j, const struct job_rank *r, bool json);

#endif
