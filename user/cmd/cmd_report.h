/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * heaptap report: its options (cmd_report.c), and its readers: a job's summary
 * (cmd_report_job.c, its page cmd_report_html.c), a database (cmd_report_db.c).
 */
#ifndef HEAPTAP_CMD_REPORT_H
#define HEAPTAP_CMD_REPORT_H

#include "cli_outputs.h"
#include "commands.h"

struct report_options {
	struct output_options out; /* -o, --json, --html, --tree, --full, --pprof... */
	const char **inputs;	   /* the report files, or the database */
	size_t nr_inputs;
	long count;	/* -n: the summary's rows */
	int rank;	/* --rank; -1: every process */
	long run_id;	/* --run; 0: the newest */
	bool list_runs; /* --list */
};
extern const struct cli_command report_command;

/*
 * heaptap report FILE... or DB.sqlite without --full, --tree, --pprof, --folded or --list:
 * the job's summary across its ranks; of JSON reports with --rank R, that rank's report.
 */
int cmd_report_job(const struct report_options *o);
struct job;
/* Its --html page (cmd_report_html.c) into html, open: EXIT_OK or EXIT_FAILURE_INTERNAL. */
int report_job_html(const struct report_options *o, const struct job *j, json_object *summary,
		    struct report_file *html);
/* heaptap report DB.sqlite */
int cmd_report_db(const struct report_options *o);

#endif
