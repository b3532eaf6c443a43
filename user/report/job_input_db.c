// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A collector's run as a job: the run's report (as report DB --json writes it), with samples. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "job_input_internal.h"
#include "log.h"
#include "report.h"
#include "store_read.h"

int job_input_read_db(struct job *j, const char *path, int64_t run_id)
{
	struct store *st = NULL;
	struct run_view v = {};
	struct report_run run;
	json_object *root = NULL, *processes;
	int err;

	if ((err = store__open(path, true, &st)))
		return err;
	err = store__load_run(st, run_id, 0, false, &v);
	if (err == -ENOENT) {
		if (run_id)
			log_error("%s has no run %" PRId64 ": heaptap report %s --list shows them",
				  path, run_id, path);
		else
			log_error("%s holds no run yet: a collector (heaptap collect --db %s) stores "
				  "one when agents send it", path, path);
		goto cleanup;
	}
	if (err || (err = run_view__report(&v, &run))) {
		log_error("cannot read run %" PRId64 " of %s", run_id, path);
		goto cleanup;
	}
	if (!(root = report_json_run_object(&run))) {
		err = -ENOMEM;
		goto cleanup;
	}
	processes = json_object_object_get(root, "processes");
	/* report_json_run_object writes the run's processes in the view's order. */
	for (size_t i = 0; i < v.nr && !err; i++) {
		json_object *samples;

		if (!(err = store__load_samples(st, v.processes[i]->id, v.started, &samples)))
			json_object_object_add(json_object_array_get_idx(processes, i), "samples",
					       samples);
	}
	j->run = v.id;
	if (err)
		log_error("cannot read the samples of run %" PRId64 " of %s", v.id, path);
	else
		err = job_input_add_report(j, root, NULL);
	if (!err && !j->job_id && v.job[0] && !(j->job_id = strdup(v.job)))
		err = -ENOMEM;
cleanup:
	json_object_put(root);
	run_view__clear(&v);
	store__close(st);
	return err;
}
