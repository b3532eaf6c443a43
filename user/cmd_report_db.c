// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap report DB.sqlite: a stored run as a report, or the list of runs. */
#include <errno.h>
#include <string.h>
#include "commands.h"
#include "log.h"
#include "store_read.h"

static int write_run(struct report_file *rf, const struct report_run *run, bool json)
{
	FILE *f = report_file__begin(rf);
	int err = f ? 0 : -errno;

	if (f && json)
		report_json_run(f, run, false);
	else if (f)
		report_text_run(f, run);
	if (report_file__close(rf) && !err)
		err = -EIO;
	return err;
}

int cmd_report_db(const struct options *opts)
{
	struct report_file text = {}, json = {};
	struct report_run run;
	struct run_view v = {};
	struct store *st = NULL;
	const char *db = opts->inputs[0];
	int status = EXIT_OK, err;

	if (opts->pprof_path || opts->folded_path) {
		log_error("%s keeps no allocation stacks: export --pprof and --folded from a JSON "
			  "report (heaptap run --json, or each rank's)", db);
		return EXIT_USAGE;
	}
	if (opts->list_runs && (opts->run_id || opts->json_path || opts->text_path)) {
		log_error("--list prints the runs only: drop --run, --json and -o");
		return EXIT_USAGE;
	}
	if (opts->text_path && (err = report_file__open(&text, opts->text_path))) {
		log_error("cannot write -o %s: %s", opts->text_path, strerror(-err));
		return EXIT_USAGE;
	}
	if (opts->json_path && (err = report_file__open(&json, opts->json_path))) {
		log_error("cannot write --json %s: %s", opts->json_path, strerror(-err));
		status = EXIT_USAGE;
		goto cleanup;
	}
	if (store__open(db, true, &st)) {
		status = EXIT_USAGE;
		goto cleanup;
	}
	if (opts->list_runs) {
		status = store__list_runs(st, stdout) ? EXIT_FAILURE_INTERNAL : EXIT_OK;
		goto cleanup;
	}
	err = store__load_run(st, opts->run_id, 0, false, &v);
	if (err == -ENOENT) {
		if (opts->run_id)
			log_error("%s has no run %ld: heaptap report %s --list shows them",
				  db, opts->run_id, db);
		else
			log_error("%s holds no run yet", db);
		status = EXIT_USAGE;
		goto cleanup;
	}
	if (err || run_view__report(&v, &run)) {
		status = EXIT_FAILURE_INTERNAL;
		goto cleanup;
	}
	if (!text.f)
		report_text_run(stdout, &run);
	else if ((err = write_run(&text, &run, false))) {
		log_error("cannot write %s: %s", opts->text_path, strerror(-err));
		status = EXIT_FAILURE_INTERNAL;
	}
	if (json.f && (err = write_run(&json, &run, true))) {
		log_error("cannot write %s: %s", opts->json_path, strerror(-err));
		status = EXIT_FAILURE_INTERNAL;
	}
cleanup:
	run_view__clear(&v);
	store__close(st);
	report_file__close(&text);
	report_file__close(&json);
	return status;
}
