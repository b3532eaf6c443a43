// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap compare REPORT...: which functions grow with the number of processes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "compare.h"
#include "log.h"

/* Write one output into its file and close it. EXIT_OK or EXIT_FAILURE_INTERNAL. */
static int write_output(struct report_file *rf, const struct comparison *c,
			void (*write)(FILE *, const struct comparison *))
{
	FILE *f;

	if (!rf->f)
		return EXIT_OK;
	f = report_file__begin(rf);
	if (f)
		write(f, c);
	if (!f || report_file__close(rf)) {
		log_error("cannot write %s", rf->path);
		return EXIT_FAILURE_INTERNAL;
	}
	return EXIT_OK;
}

int cmd_compare(const struct options *opts)
{
	struct report_file json = {}, html = {};
	struct loaded_report *reports;
	struct comparison c = {};
	int status = EXIT_USAGE, err;
	size_t nr = 0;

	reports = calloc(opts->nr_inputs, sizeof(*reports));
	if (!reports) {
		log_error("out of memory");
		return EXIT_FAILURE_INTERNAL;
	}
	if (opts->json_path && (err = report_file__open(&json, opts->json_path))) {
		log_error("cannot write --json %s: %s", opts->json_path, strerror(-err));
		goto cleanup;
	}
	if (opts->html_path && (err = report_file__open(&html, opts->html_path))) {
		log_error("cannot write --html %s: %s", opts->html_path, strerror(-err));
		goto cleanup;
	}
	for (nr = 0; nr < opts->nr_inputs; nr++) {
		if (loaded_report__read_json(opts->inputs[nr], &reports[nr]))
			goto cleanup;
	}
	err = comparison__build(reports, nr, opts->under, opts->depth, &c);
	if (err) {
		status = err == -ENOMEM ? EXIT_FAILURE_INTERNAL : EXIT_USAGE;
		goto cleanup;
	}
	comparison__text(stdout, &c);
	status = write_output(&json, &c, comparison__json);
	if (write_output(&html, &c, comparison__html))
		status = EXIT_FAILURE_INTERNAL;
cleanup:
	comparison__clear(&c);
	report_file__close(&json);
	report_file__close(&html);
	for (size_t i = 0; i < nr; i++)
		loaded_report__clear(&reports[i]);
	free(reports);
	return status;
}
