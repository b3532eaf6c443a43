// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * One heaptap run per MPI rank under Open MPI's mpirun: each report knows its rank, the
 * rank's own allocations match the rank's own truth, and Debian's Open MPI (built without
 * frame pointers) is unwound whole: MPI_Init carries the library's start-up allocations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(mpi, .timeout = 180);

/* Calls of libmpi's function under the entry rule (NULL if it is not in the report). */
static json_object *libmpi_calls(json_object *functions, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(functions); i++) {
		json_object *f = json_object_array_get_idx(functions, i);

		if (!strcmp(json_object_get_string(get(f, "function")), name) &&
		    strstr(json_object_get_string(get(f, "library")), "/libmpi.so"))
			return get(f, "calls");
	}
	return NULL;
}

static long long sum_calls(json_object *calls, bool frees)
{
	long long n = 0;

	json_object_object_foreach(calls, name, count) {
		if (!strcmp(name, "free") == frees)
			n += json_object_get_int64(count);
	}
	return n;
}

/* Open MPI's own memory, seen whole through its libraries' .eh_frame. */
static void assert_mpi_library_stacks(json_object *process, int rank)
{
	json_object *functions = get(process, "functions");
	json_object *init = libmpi_calls(functions, "MPI_Init");
	json_object *finalize = libmpi_calls(functions, "MPI_Finalize");
	long long calls = sum_calls(get(get(process, "total"), "calls"), false) +
			  sum_calls(get(get(process, "total"), "calls"), true);
	long long incomplete = json_object_get_int64(get(process, "incomplete_stacks"));

	cr_assert(init != NULL, "rank %d: no MPI_Init under libmpi", rank);
	cr_expect(sum_calls(init, false) >= 100, "rank %d: MPI_Init allocated only %lld times",
		  rank, sum_calls(init, false));
	cr_assert(finalize != NULL, "rank %d: no MPI_Finalize under libmpi", rank);
	cr_expect(sum_calls(finalize, true) >= 100, "rank %d: MPI_Finalize freed only %lld times",
		  rank, sum_calls(finalize, true));
	cr_expect(incomplete * 100 < calls, "rank %d: %lld of %lld stacks incomplete (1%% allowed)",
		  rank, incomplete, calls);
}

Test(mpi, one_heaptap_per_rank)
{
	char target[4096], script[8192], what[128];
	const int ranks = 2;

	require_bpf();
	snprintf(script, sizeof(script),
		 "exec %s run -a entry --json %s/rank-$OMPI_COMM_WORLD_RANK.json -o /dev/null -- "
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
		assert_mpi_library_stacks(process, rank);
		json_object_put(report);
		json_object_put(truth);
	}
}
