// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap compare REPORT...: which functions grow with the number of processes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmd_compare.h"
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

static int cmd_compare(const void *options)
{
	const struct compare_options *opts = options;
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
	if (opts->out.json_path && (err = report_file__open(&json, opts->out.json_path))) {
		log_error("cannot write --json %s: %s", opts->out.json_path, strerror(-err));
		goto cleanup;
	}
	if (opts->out.html_path && (err = report_file__open(&html, opts->out.html_path))) {
		log_error("cannot write --html %s: %s", opts->out.html_path, strerror(-err));
		goto cleanup;
	}
	for (nr = 0; nr < opts->nr_inputs; nr++) {
		if (loaded_report__read_json(opts->inputs[nr], &reports[nr]))
			goto cleanup;
	}
	err = comparison__build(reports, nr, opts->out.under, opts->out.depth, &c);
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

/* compare's own option without a short form. */
enum { OPT_BY = CLI_OWN_KEYS };

static const struct argp_option options[] = {
	{ "under", CLI_OPT_UNDER, "FUNCTION", 0, "compare the calls below FUNCTION (default: "
						 "below each entry function, the program's "
						 "first call into a library)" },
	{ "depth", CLI_OPT_DEPTH, "N", 0, "compare N levels, FUNCTION's own included (default "
					  "3)" },
	{ "by", OPT_BY, "world_size", 0, "what the runs differ in: world_size (the default, "
					 "and the only one)" },
	{ "json", CLI_OPT_JSON, "FILE", 0, "also write the comparison as JSON "
					   "(schema \"heaptap_compare\": 1)" },
	{ "html", CLI_OPT_HTML, "FILE", 0, "also write it as a web page, a plot per growing "
					   "function" },
	{},
};

static error_t parse(struct cli_state *c, int key, char *arg)
{
	struct compare_options *o = c->opts;

	switch (key) {
	case ARGP_KEY_INIT:
		cli_outputs_defaults(&o->out);
		return 0;
	case OPT_BY:
		if (strcmp(arg, "world_size"))
			return cli_usage_error(c->sub, "--by must be world_size, not '%s'", arg);
		return 0;
	case ARGP_KEY_ARG:
		return cli_add_file(c, arg, &o->inputs, &o->nr_inputs);
	case ARGP_KEY_END:
		if (o->nr_inputs < 2)
			return cli_usage_error(c->sub, "%s", "compare needs two or more reports, "
					       "of runs at different process counts");
		if (!o->out.depth)
			o->out.depth = 3;
		return 0;
	default:
		return cli_parse_outputs(c, &o->out, key, arg);
	}
}

static void free_options(void *opts)
{
	struct compare_options *o = opts;

	free(o->inputs);
}

const struct cli_command compare_command = {
	.name = "compare",
	.summary = "which functions grow with the number of processes, across reports",
	.man_section = 1,
	.options = options,
	.args_doc = "REPORT.json...",
	.doc = "Compare JSON reports of one program run at different process counts: for "
	       "each call-tree node below FUNCTION, the median over ranks of its current and "
	       "max bytes per run, and a least-squares line max = a + b*p through them. b is "
	       "bytes_per_process; a function grows when b*p at the largest p is at least 10% "
	       "of its max there and R^2 is at least 0.8. Sorted by growth. Needs no "
	       "privileges.",
	.takes_files = true,
	.opts_size = sizeof(struct compare_options),
	.parse = parse,
	.free = free_options,
	.run = cmd_compare,
};
