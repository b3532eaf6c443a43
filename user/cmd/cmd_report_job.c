// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap report FILE... | DB.sqlite: the job's summary across its ranks, text, --json and
 * --html.
 */
#include <errno.h>
#include <string.h>
#include "cmd_report.h"
#include "commands.h"
#include "job_input.h"
#include "job_summary.h"
#include "log.h"

#define DEFAULT_TOP 20

static int write_json(struct report_file *rf, json_object *summary)
{
	FILE *f = report_file__begin(rf);

	if (f)
		fprintf(f, "%s\n", json_object_to_json_string_ext(summary,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	return !f || report_file__close(rf) ? -EIO : 0;
}

/* --rank R: its own report, text and --json. */
static int report_rank(const struct report_options *opts, const struct job *j,
		       struct report_file *text, struct report_file *json)
{
	const struct job_rank *r = job__rank(j, opts->rank);
	int status = EXIT_OK;
	FILE *f;

	if (!r) {
		log_error("%s no %s %d: heaptap report %s lists them", opts->nr_inputs > 1 ?
			  "these reports have" : "this report has", j->mpi ? "rank" : "process",
			  opts->rank, opts->nr_inputs > 1 ? "FILE..." : opts->inputs[0]);
		return EXIT_USAGE;
	}
	f = text->f ? report_file__begin(text) : stdout;
	if (!f || job_rank_report(f, j, r, false) || (text->f && report_file__close(text))) {
		log_error("cannot write %s",
			  opts->out.text_path ? opts->out.text_path : "the report");
		status = EXIT_FAILURE_INTERNAL;
	}
	if (json->f && (!(f = report_file__begin(json)) || job_rank_report(f, j, r, true) ||
			report_file__close(json))) {
		log_error("cannot write %s", opts->out.json_path);
		status = EXIT_FAILURE_INTERNAL;
	}
	return status;
}

int cmd_report_job(const struct report_options *opts)
{
	struct report_file text = {}, json = {}, html = {};
	const struct report_output outputs[] = {
		{ &text, opts->out.text_path, "-o" },
		{ &json, opts->out.json_path, "--json" },
		{ &html, opts->out.html_path, "--html" },
	};
	struct job_summary_opts top = { .top = opts->count > 0 ? (size_t)opts->count : DEFAULT_TOP,
					.sites = JOB_PEAK_SITES };
	struct job_summary_opts all = { .top = opts->count > 0 ? (size_t)opts->count : 0,
					.sites = JOB_PEAK_SITES };
	json_object *summary = NULL, *whole = NULL;
	struct job j = {};
	int status = EXIT_OK, err;
	FILE *f;

	if (report_outputs__open(outputs, sizeof(outputs) / sizeof(outputs[0])))
		return EXIT_USAGE;
	if ((err = job__read(opts->inputs, opts->nr_inputs, opts->run_id, &j))) {
		status = err == -ENOMEM ? EXIT_FAILURE_INTERNAL : EXIT_USAGE;
		goto cleanup;
	}
	if (opts->rank >= 0) {
		status = report_rank(opts, &j, &text, &json);
		goto cleanup;
	}
	if (!(summary = job_summary_build(&j, &top)) ||
	    ((json.f || html.f) && !(whole = job_summary_build(&j, &all)))) {
		log_error("out of memory summing up the job");
		status = EXIT_FAILURE_INTERNAL;
		goto cleanup;
	}
	f = text.f ? report_file__begin(&text) : stdout;
	if (f)
		job_summary_text(f, summary);
	if (text.f && (!f || report_file__close(&text))) {
		log_error("cannot write %s", opts->out.text_path);
		status = EXIT_FAILURE_INTERNAL;
	}
	if (json.f && write_json(&json, whole)) {
		log_error("cannot write %s", opts->out.json_path);
		status = EXIT_FAILURE_INTERNAL;
	}
	if (html.f && report_job_html(opts, &j, whole, &html))
		status = EXIT_FAILURE_INTERNAL;
cleanup:
	json_object_put(summary);
	json_object_put(whole);
	job__clear(&j);
	report_file__close(&text);
	report_file__close(&json);
	report_file__close(&html);
	return status;
}
