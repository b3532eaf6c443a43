// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap report DB.sqlite: a stored run as a report, or the list of runs. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "cmd_report.h"
#include "commands.h"
#include "log.h"
#include "owner_text.h"
#include "profile_files.h"
#include "profile_input.h"
#include "profile_session.h"
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

/*
 * A stored process's largest sites (outstanding and at the peak, no allocated) into p,
 * read as the same JSON fields a report file gives. 0 or -ENOMEM.
 */
static int add_stored_owner(struct heap_profile *p, const struct target *t,
			    const struct stored_owner *o)
{
	struct profile_labels labels = { .pid = t->pid, .rank = t->mpi.rank };
	json_object *process;
	const char *what;
	int err;

	if (!o)
		return 0;
	if (!(process = json_object_new_object()))
		return -ENOMEM;
	stored_owner__json(process, o);
	err = profile_read_json_process(process, &labels, p, &what);
	json_object_put(process);
	return err;
}

/* --pprof and --folded: the stored processes' allocation sites, of --rank R or of all. */
static int write_exports(const struct report_options *opts, const struct report_run *run,
			 struct report_file *pprof, struct report_file *folded)
{
	struct heap_profile *p = heap_profile__new();
	int status = p ? EXIT_OK : EXIT_FAILURE_INTERNAL;

	for (size_t i = 0; p && i < run->nr && status == EXIT_OK; i++) {
		if (profile_add_target(p, run->targets[i]) ||
		    add_stored_owner(p, run->targets[i], run->facts[i].owner))
			status = EXIT_FAILURE_INTERNAL;
	}
	if (status != EXIT_OK) {
		log_error("out of memory exporting run %" PRId64, run->id);
	} else if (opts->rank >= 0 && !heap_profile__keep_rank(p, opts->rank)) {
		log_error("run %" PRId64 " has no allocation sites of rank %d", run->id,
			  opts->rank);
		status = EXIT_USAGE;
	} else if (profile_write_files(p, pprof, folded, opts->out.folded_weight)) {
		status = EXIT_FAILURE_INTERNAL;
	}
	report_file__close(pprof);
	report_file__close(folded);
	heap_profile__free(p);
	return status;
}

int cmd_report_db(const struct report_options *opts)
{
	struct report_file text = {}, json = {}, pprof = {}, folded = {};
	const struct report_output outputs[] = {
		{ &text, opts->out.text_path, "-o" },
		{ &json, opts->out.json_path, "--json" },
		{ &pprof, opts->out.pprof_path, "--pprof" },
		{ &folded, opts->out.folded_path, "--folded" },
	};
	struct report_run run;
	struct run_view v = {};
	struct store *st = NULL;
	const char *db = opts->inputs[0];
	int status = EXIT_OK, err;

	if (opts->list_runs && (opts->run_id || opts->out.json_path || opts->out.text_path ||
				opts->out.pprof_path || opts->out.folded_path)) {
		log_error("--list prints the runs only: drop --run, --json, -o, --pprof and --folded");
		return EXIT_USAGE;
	}
	if (report_outputs__open(outputs, sizeof(outputs) / sizeof(outputs[0])))
		return EXIT_USAGE;
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
	if (!err && opts->rank >= 0 && !run_view__keep_rank(&v, opts->rank)) {
		log_error("run %ld of %s has no rank %d: heaptap report %s --run %ld lists its "
			  "processes", (long)v.id, db, opts->rank, db, (long)v.id);
		status = EXIT_USAGE;
		goto cleanup;
	}
	if (err || run_view__report(&v, &run)) {
		status = EXIT_FAILURE_INTERNAL;
		goto cleanup;
	}
	owner_text_set_depth(opts->out.site_depth);
	if (!text.f)
		report_text_run(stdout, &run);
	else if ((err = write_run(&text, &run, false))) {
		log_error("cannot write %s: %s", opts->out.text_path, strerror(-err));
		status = EXIT_FAILURE_INTERNAL;
	}
	if (json.f && (err = write_run(&json, &run, true))) {
		log_error("cannot write %s: %s", opts->out.json_path, strerror(-err));
		status = EXIT_FAILURE_INTERNAL;
	}
	if ((pprof.f || folded.f) && (err = write_exports(opts, &run, &pprof, &folded)) &&
	    status == EXIT_OK)
		status = err;
cleanup:
	run_view__clear(&v);
	store__close(st);
	report_file__close(&text);
	report_file__close(&json);
	report_file__close(&pprof);
	report_file__close(&folded);
	return status;
}
