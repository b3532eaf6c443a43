// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* One heaptap run per MPI rank under Open MPI's mpirun: each report knows its rank, and
 * the rank's own allocations match the rank's own truth. */
#include <stdio.h>
#include <stdlib.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(mpi, .timeout = 180);

Test(mpi, one_heaptap_per_rank)
{
	char target[4096], script[8192], what[128];
	const int ranks = 2;

	require_bpf();
	snprintf(script, sizeof(script),
		 "exec %s run --json %s/rank-$OMPI_COMM_WORLD_RANK.json -o /dev/null -- "
		 "%s --truth-dir %s",
		 heaptap_path(), scratch_dir(), target_path("mpi_rank", target, sizeof(target)),
		 scratch_dir());
	{
		char *argv[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
				 "sh", "-c", script, NULL };
		char err[256];
		int status = wait_status(spawn(argv, NULL, scratch_file("mpirun.err", err,
									sizeof(err))), 150);

		cr_assert(eq(int, status, 0), "mpirun: %s", slurp(err));
	}
	for (int rank = 0; rank < ranks; rank++) {
		char report_path[256], truth_path[256], name[64];
		json_object *report, *truth, *process;

		snprintf(name, sizeof(name), "rank-%d.json", rank);
		report = load_json(scratch_file(name, report_path, sizeof(report_path)));
		snprintf(name, sizeof(name), "truth-%d.json", rank);
		truth = load_json(scratch_file(name, truth_path, sizeof(truth_path)));
		process = json_object_array_get_idx(get(report, "processes"), 0);
		cr_assert(process != NULL);
		cr_expect(eq(int, json_object_get_int(get(process, "rank")), rank));
		cr_expect(json_object_is_type(get(process, "rank"), json_type_int));
		cr_expect(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));

		snprintf(what, sizeof(what), "rank %d", rank);
		assert_libgt_functions(get(process, "functions"), get(truth, "entry_functions"),
				       what);
		json_object_put(report);
		json_object_put(truth);
	}
}
