// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap report --html: the job's page, from its reports (or its database run) and summary. */
#include <errno.h>
#include <string.h>
#include "commands.h"
#include "job_input.h"
#include "log.h"
#include "report.h"
#include "report_html.h"

/* A database's rank as a report's process: what the page shows of it (no call tree). */
static json_object *rank_json(const struct job_rank *r)
{
	json_object *p = json_object_new_object(), *total = json_object_new_object();
	json_object *libs = json_object_new_array(), *funcs = json_object_new_array();
	json_object *samples = json_object_new_array();

	json_object_object_add(p, "pid", json_object_new_int(r->pid));
	json_object_object_add(p, "rank", json_object_new_int(r->rank));
	json_object_object_add(p, "world_size", r->world_size >= 0 ?
							json_object_new_int(r->world_size) :
							NULL);
	json_object_object_add(p, "host", r->host ? json_object_new_string(r->host) : NULL);
	json_object_object_add(p, "command", json_object_new_string(r->command ?: "?"));
	json_object_object_add(p, "lost_events", json_object_new_int64(r->lost_events));
	json_object_object_add(p, "incomplete_stacks",
			       json_object_new_int64(r->incomplete_stacks));
	report_json_balance(total, &r->total);
	json_object_object_add(p, "total", total);
	for (size_t i = 0; i < r->nr_libraries; i++) {
		json_object *l = json_object_new_object();

		json_object_object_add(l, "library", json_object_new_string(r->libraries[i].library));
		report_json_balance(l, &r->libraries[i].bal);
		json_object_array_add(libs, l);
	}
	for (size_t i = 0; i < r->nr_functions; i++) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "function",
				       json_object_new_string(r->functions[i].function));
		json_object_object_add(f, "library",
				       json_object_new_string(r->functions[i].library));
		report_json_balance(f, &r->functions[i].bal);
		json_object_array_add(funcs, f);
	}
	for (size_t i = 0; i < r->nr_samples; i++) {
		json_object *s = json_object_new_array();

		json_object_array_add(s, json_object_new_double(r->samples[i].t));
		json_object_array_add(s, json_object_new_int64(r->samples[i].current));
		json_object_array_add(s, json_object_new_int64(r->samples[i].max));
		json_object_array_add(samples, s);
	}
	json_object_object_add(p, "libraries", libs);
	json_object_object_add(p, "functions", funcs);
	json_object_object_add(p, "samples", samples);
	return p;
}

/* The page's title: the job, or the one file. */
static void title_of(const struct options *opts, const struct job *j, char *buf, size_t size)
{
	if (j->job_id)
		snprintf(buf, size, "heaptap report: job %s, %zu rank%s", j->job_id, j->nr,
			 j->nr == 1 ? "" : "s");
	else
		snprintf(buf, size, "heaptap report: %s%s, %zu rank%s", opts->inputs[0],
			 opts->nr_inputs > 1 ? "..." : "", j->nr, j->nr == 1 ? "" : "s");
}

int report_job_html(const struct options *opts, const struct job *j, json_object *summary,
		    struct report_file *html)
{
	struct job_page *page = job_page__new();
	char title[512];
	int err = page ? 0 : -ENOMEM;
	FILE *f;

	if (j->run) { /* a database: the ranks as read */
		for (size_t i = 0; i < j->nr && !err; i++) {
			json_object *p = rank_json(&j->ranks[i]);

			err = job_page__add_process(page, p);
			json_object_put(p);
		}
	} else { /* the reports again, one at a time: their threads and call trees */
		for (size_t i = 0; i < opts->nr_inputs && !err; i++)
			err = job_page__add_file(page, opts->inputs[i]);
	}
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
