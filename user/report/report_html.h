/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * heaptap report FILE... --html: a job's page. Its summary across ranks (job_summary.h's
 * JSON), memory over time per rank, each function's max across ranks, the libraries'
 * shares, the call tree below a chosen function, and each rank's text report, one click
 * away. The call trees are added one report file at a time, so that the reports of a
 * thousand ranks need not be held at once.
 */
#ifndef HEAPTAP_REPORT_HTML_H
#define HEAPTAP_REPORT_HTML_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "job_input.h"

/*
 * Memory over time: at most this many points per rank, evenly spaced when the samples'
 * times are more, each the most the rank held since the point before.
 */
#define JOB_PAGE_MAX_POINTS 400

struct job_page;

/* A rank as the page shows it; job_page__add_rank copies what it needs. */
struct job_page_rank {
	int rank, pid;
	const char *host; /* NULL: not recorded */
	const char *text; /* its own report */
	const struct job_sample *samples; /* in time order */
	size_t nr_samples;
};

/* mpi: the ranks are MPI ranks (job.mpi), which decides how the call trees are numbered. */
struct job_page *job_page__new(bool mpi);
/* A rank: its own report and its samples over time. 0, or -ENOMEM. */
int job_page__add_rank(struct job_page *p, const struct job_page_rank *r);
/*
 * The call trees (processes[].calltree) of a JSON report file, each under its rank as the
 * job numbers them: MPI ranks, processes without one left out; or processes numbered 0,
 * 1... in the order of the files and their processes. 0, -EINVAL (not a heaptap report)
 * or -ENOMEM.
 */
int job_page__add_trees(struct job_page *p, const char *path);
/* The page, with the summary of the processes added. */
void job_page__write(FILE *out, struct job_page *p, const char *title, json_object *summary);
void job_page__free(struct job_page *p);

#endif
