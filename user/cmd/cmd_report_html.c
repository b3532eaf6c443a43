// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap report --html: the job's page, from its ranks, their call trees and the summary. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmd_report.h"
#include "commands.h"
#include "job_input.h"
#include "log.h"
#include "report_html.h"

/* The page's title: the job, or the one file. */
static void title_of(const struct report_options *opts, const struct job *j, char *buf, size_t size)
{
	if (j->job_id)
		snprintf(buf, size, "heaptap report: job %s, %zu rank%s", j->job_id, j->nr,
			 j->nr == 1 ? "" : "s");
	else
		snprintf(buf, size, "heaptap report: %s%s, %zu rank%s", opts->inputs[0],
			 opts->nr_inputs > 1 ? "..." : "", j->nr, j->nr == 1 ? "" : "s");
}

/* Each rank with its own report, as report --rank prints it. 0, or -ENOMEM. */
static int add_ranks(struct job_page *page, const struct job *j)
{
	int err = 0;

	for (size_t i = 0; i < j->nr && !err; i++) {
		const struct job_rank *r = &j->ranks[i];
		struct job_page_rank pr = { .rank = r->rank, .pid = r->pid, .host = r->host,
					    .samples = r->samples, .nr_samples = r->nr_samples };
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		if (!f)
			return -ENOMEM;
		err = job_rank_report(f, j, r, false);
		if (fclose(f) && !err)
			err = -ENOMEM;
		pr.text = text;
		if (!err)
			err = job_page__add_rank(page, &pr);
		free(text);
	}
	return err;
}

int report_job_html(const struct report_options *opts, const struct job *j, json_object *summary,
		    struct report_file *html)
{
	struct job_page *page = job_page__new(j->mpi);
	char title[512];
	int err = page ? add_ranks(page, j) : -ENOMEM;
	FILE *f;

	/* A database keeps no call trees; reports do: read again, one file at a time. */
	for (size_t i = 0; !j->run && i < opts->nr_inputs && !err; i++)
		err = job_page__add_trees(page, opts->inputs[i]);
	if (err) {
		log_error("%s", err == -ENOMEM ? "out of memory building the page" :
						 "a report changed while it was read: run again");
		job_page__free(page);
		return EXIT_FAILURE_INTERNAL;
	}
	title_of(opts, j, title, sizeof(title));
	f = report_file__begin(html);
	if (f)
		job_page__write(f, page, title, summary);
	job_page__free(page);
	if (!f || report_file__close(html)) {
		log_error("cannot write %s", html->path);
		return EXIT_FAILURE_INTERNAL;
	}
	return EXIT_OK;
}
