// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The end of an MPI job's text report: the summary across its ranks, the very one heaptap
 * report prints of the job's JSON report, made from the session's own JSON report (without
 * its call trees: the summary does not read them).
 */
#include <errno.h>
#include <stdlib.h>
#include "job_summary.h"
#include "report.h"

/* The libraries and functions the summary lists, as heaptap report does by default. */
#define JOB_TEXT_TOP 20

int report_job_text(FILE *out, struct session *s)
{
	struct job_summary_opts opts = { .top = JOB_TEXT_TOP, .sites = JOB_PEAK_SITES };
	char *text = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size);
	json_object *summary;
	struct job j;
	int err;

	if (!mem)
		return -errno;
	report_json_for_summary(mem, s);
	if (fclose(mem) || !text) {
		free(text);
		return -ENOMEM;
	}
	err = job__read_text(text, size, "this run", &j);
	free(text);
	if (err)
		return err;
	summary = job_summary_build(&j, &opts);
	if (summary)
		job_summary_text(out, summary);
	else
		err = -ENOMEM;
	json_object_put(summary);
	job__clear(&j);
	return err;
}
