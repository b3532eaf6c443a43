/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * heaptap report FILE... --html: a job's page. Its summary across ranks (job_summary.h's
 * JSON), memory over time per rank, each function's max across ranks, the libraries'
 * shares, the call tree below a chosen function, and each rank's text report, one click
 * away. The processes are added one by one as their reports are read, so that the reports
 * of a thousand ranks need not be held at once.
 */
#ifndef HEAPTAP_REPORT_HTML_H
#define HEAPTAP_REPORT_HTML_H

#include <stdio.h>
#include <json-c/json.h>

/* Memory over time: at most this many points per rank (the samples taken at them). */
#define JOB_PAGE_MAX_POINTS 400

struct job_page;

struct job_page *job_page__new(void);
/*
 * One element of a report's processes[]: its text report, samples and call tree. Processes
 * without a rank are numbered 0, 1... in the order added, and left out when others have
 * one (mpirun beside its ranks), as the summary numbers them. 0, or -ENOMEM.
 */
int job_page__add_process(struct job_page *p, json_object *process);
/* Each process of a JSON report file. 0, -EINVAL (not a heaptap report) or -ENOMEM. */
int job_page__add_file(struct job_page *p, const char *path);
/* The page, with the summary of the processes added. */
void job_page__write(FILE *out, struct job_page *p, const char *title, json_object *summary);
void job_page__free(struct job_page *p);

#endif
