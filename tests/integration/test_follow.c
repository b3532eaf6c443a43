// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * run --follow traces every process the command starts, each from its first instruction:
 * the ground truth through a shell, and the ranks of an mpirun job, each matching the
 * truth it recorded itself; --mpi keeps only the ranks.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(follow, .timeout = 240);

Test(follow, a_program_started_by_a_shell)
{
	char target[4096], script[8192], json[256], truth[256];
	json_object *report, *processes, *want_threads, *shell = NULL, *gt = NULL;

	require_bpf();
	/* Two commands, so the shell forks and execs rather than exec'ing itself. */
	snprintf(script, sizeof(script), "%s --truth %s; true",
		 target_path("groundtruth", target, sizeof(target)),
		 scratch_file("truth.json", truth, sizeof(truth)));
	{
		char *argv[] = { (char *)heaptap_path(), "run", "--follow", "--json",
				 (char *)scratch_file("report.json", json, sizeof(json)), "-o",
				 "/dev/null", "--", "sh", "-c", script, NULL };

		cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 120), 0));
	}
	report = load_json(json);
	processes = get(report, "processes");
	cr_assert(eq(sz, json_object_array_length(processes), 2), "the shell and its child");
	for (size_t i = 0; i < 2; i++) {
		json_object *p = json_object_array_get_idx(processes, i);

		/* The shell's command line names groundtruth too, in its script. */
		if (!strncmp(json_object_get_string(get(p, "command")), "sh ", 3))
			shell = p;
		else
			gt = p;
	}
	cr_assert(gt != NULL && shell != NULL);
	cr_expect(json_object_get_boolean(get(gt, "exited")));
	cr_expect(eq(i64, json_object_get_int64(get(gt, "lost_events")), 0));
	want_threads = get(load_json(truth), "threads");
	assert_threads(get(gt, "threads"), want_threads, "the followed child");
	json_object_put(report);
}

/* mpirun -np N under heaptap; returns the report's processes[] (report in *report). */
static json_object *trace_mpirun_np(const char *mode, const char *np, json_object **report)
{
	char target[4096], json[256], err[256];
	char *argv[] = { (char *)heaptap_path(), "run", (char *)mode, "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o", "/dev/null",
			 "--", "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", (char *)np,
			 (char *)target_path("mpi_rank", target, sizeof(target)), "--truth-dir",
			 (char *)scratch_dir(), NULL };
	int status = wait_status(spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err))),
				 200);

	cr_assert(eq(int, status, 0), "heaptap run %s -- mpirun: %s", mode, slurp(err));
	*report = load_json(json);
	return get(*report, "processes");
}

static json_object *trace_mpirun(const char *mode, json_object **report)
{
	return trace_mpirun_np(mode, "3", report);
}

#define MAX_RANKS 16

/*
 * Every rank 0..ranks-1 appears once, whole (nothing lost, every stack complete), and its
 * libgt functions equal its own truth.
 */
/* The files incomplete stacks ended in, for a failure's message. */
static const char *cut_files(json_object *report)
{
	static char list[1024];
	json_object *tables = get(report, "unwind_tables");
	size_t len = 0;

	list[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(tables) && len < sizeof(list) - 1; i++) {
		json_object *t = json_object_array_get_idx(tables, i);

		if (json_object_get_int64(get(t, "cut_stacks")))
			len += snprintf(list + len, sizeof(list) - len, "%s (%lld) ",
					json_object_get_string(get(t, "file")),
					(long long)json_object_get_int64(get(t, "cut_stacks")));
	}
	return list;
}

/* A rank's calls of every function. */
static long long calls_of_process(json_object *p)
{
	long long n = 0;

	json_object_object_foreach(get(get(p, "total"), "calls"), func, calls) {
		(void)func;
		n += json_object_get_int64(calls);
	}
	return n;
}

/*
 * Every rank 0..ranks-1 appears once, nothing lost, its libgt functions equal to its own
 * truth, and no call with an incomplete stack; at most one in cut_per of its calls (0:
 * none) if it was not held at some exec or loader event, as heaptap counts and reports.
 */
static void expect_n_ranks_match_truth(json_object *report, int ranks, long long cut_per)
{
	json_object *processes = get(report, "processes");
	bool seen[MAX_RANKS] = {};

	for (size_t i = 0; i < json_object_array_length(processes); i++) {
		json_object *p = json_object_array_get_idx(processes, i), *truth;
		char path[256], name[64], what[64];
		int rank;

		if (json_object_is_type(get(p, "rank"), json_type_null))
			continue;
		rank = json_object_get_int(get(p, "rank"));
		cr_assert(rank >= 0 && rank < ranks && !seen[rank], "rank %d unexpected", rank);
		seen[rank] = true;
		cr_expect(eq(i64, json_object_get_int64(get(p, "lost_events")), 0), "rank %d lost",
			  rank);
		cr_expect(json_object_get_int64(get(p, "incomplete_stacks")) <=
				  (cut_per && json_object_get_int64(get(p, "holds_skipped")) ?
					   calls_of_process(p) / cut_per : 0),
			  "rank %d: %lld incomplete stacks of %lld calls (holds skipped: %lld; cut "
			  "in: %s)", rank, (long long)json_object_get_int64(get(p, "incomplete_stacks")),
			  calls_of_process(p), (long long)json_object_get_int64(get(p, "holds_skipped")),
			  cut_files(report));
		/* Open MPI on one node: a world of all ranks, local ranks equal to ranks, one job. */
		cr_expect(eq(int, json_object_get_int(get(p, "world_size")), ranks));
		cr_expect(eq(int, json_object_get_int(get(p, "local_rank")), rank));
		cr_expect(json_object_is_type(get(p, "job"), json_type_string));
		snprintf(name, sizeof(name), "truth-%d.json", rank);
		truth = load_json(scratch_file(name, path, sizeof(path)));
		snprintf(what, sizeof(what), "followed rank %d", rank);
		assert_libgt_functions(get(p, "functions"), get(truth, "entry_functions"), what);
		json_object_put(truth);
	}
	for (int rank = 0; rank < ranks; rank++)
		cr_expect(seen[rank], "rank %d not seen", rank);
}

static void expect_ranks_match_truth(json_object *report)
{
	expect_n_ranks_match_truth(report, 3, 0);
}

Test(follow, every_rank_of_an_mpirun_job)
{
	json_object *report, *processes;
	size_t launchers = 0;

	require_bpf();
	processes = trace_mpirun("--follow", &report);
	expect_ranks_match_truth(report);
	for (size_t i = 0; i < json_object_array_length(processes); i++) {
		json_object *p = json_object_array_get_idx(processes, i);

		/* A child's image before its exec (mpirun's code) is reported apart. */
		if (json_object_is_type(get(p, "rank"), json_type_null) &&
		    !json_object_get_boolean(get(p, "exec"))) {
			launchers++;
			cr_expect(strstr(json_object_get_string(get(p, "command")), "mpirun") != NULL);
		}
	}
	cr_expect(eq(sz, launchers, 1), "mpirun itself is traced and has no rank");
	json_object_put(report);
}

Test(follow, mpi_keeps_only_the_ranks)
{
	json_object *report, *processes;

	require_bpf();
	processes = trace_mpirun("--mpi", &report);
	cr_expect(eq(sz, json_object_array_length(processes), 3));
	expect_ranks_match_truth(report);
	json_object_put(report);
}

Test(follow, attach_mpi_picks_up_ranks_as_they_start)
{
	char target[4096], json[256], err[256], mpirun_err[256];
	char *heaptap_argv[] = { (char *)heaptap_path(), "attach", "--mpi", "--json",
				 (char *)scratch_file("report.json", json, sizeof(json)), NULL };
	char *mpirun_argv[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3",
				(char *)target_path("mpi_rank", target, sizeof(target)),
				"--truth-dir", (char *)scratch_dir(), NULL };
	json_object *report, *processes;
	pid_t tracer;
	bool watching;

	require_bpf();
	tracer = spawn(heaptap_argv, NULL, scratch_file("err.txt", err, sizeof(err)));
	watching = wait_for_text(err, "heaptap: watching for MPI ranks", 30);
	if (!watching)
		wait_status(tracer, 1);
	cr_assert(watching, "heaptap never started watching: %s", slurp(err));
	/* The job starts after heaptap: its ranks must be traced from their first call. */
	cr_assert(eq(int,
		     wait_status(spawn(mpirun_argv, NULL,
				       scratch_file("mpirun.err", mpirun_err, sizeof(mpirun_err))),
				 150),
		     0), "mpirun: %s", slurp(mpirun_err));
	kill(tracer, SIGINT);
	cr_assert(eq(int, wait_status(tracer, 30), 0), "heaptap: %s", slurp(err));
	report = load_json(json);
	processes = get(report, "processes");
	cr_expect(eq(sz, json_object_array_length(processes), 3), "only the ranks are reported");
	expect_ranks_match_truth(report);
	json_object_put(report);
}

/*
 * A node's ranks start together: 16 ranks' MPI_Init at once, each exact, none losing an
 * event, whether heaptap follows every process or only the ranks. Stacks: whole, but for
 * a rank heaptap could not hold at some loader event (it says so), at most one call in 200
 * cut short in what it loaded then.
 */
Test(follow, sixteen_ranks_at_once_all_exact)
{
	json_object *report;

	require_bpf();
	trace_mpirun_np("--follow", "16", &report);
	expect_n_ranks_match_truth(report, 16, 200);
	json_object_put(report);
}

Test(follow, sixteen_ranks_at_once_mpi_all_exact)
{
	json_object *report, *processes;

	require_bpf();
	processes = trace_mpirun_np("--mpi", "16", &report);
	cr_expect(eq(sz, json_object_array_length(processes), 16));
	expect_n_ranks_match_truth(report, 16, 200);
	json_object_put(report);
}

/* The stack map's figure name in the JSON report's consumers section. */
static uint64_t stack_map_figure(json_object *report, const char *name)
{
	return json_object_get_uint64(get(get(get(report, "consumers"), "stack_map"), name));
}

/*
 * The ranks of a job share their stacks: the stack map holds four ranks' stacks in
 * about the room of one rank's (by address, four times that), and each rank is exact.
 */
Test(follow, ranks_share_their_stacks)
{
	json_object *one, *four;
	uint64_t alone, together;

	require_bpf();
	trace_mpirun_np("--mpi", "1", &one);
	alone = stack_map_figure(one, "peak");
	json_object_put(one);
	trace_mpirun_np("--mpi", "4", &four);
	together = stack_map_figure(four, "peak");
	expect_n_ranks_match_truth(four, 4, 0);
	cr_expect(alone > 1000, "one rank stored only %llu stacks", (unsigned long long)alone);
	cr_expect(together * 2 < alone * 3,
		  "four ranks held %llu stacks, one rank alone %llu: not shared",
		  (unsigned long long)together, (unsigned long long)alone);
	cr_expect(stack_map_figure(four, "shared") * 10 > together * 9,
		  "of %llu stacks, only %llu shared", (unsigned long long)together,
		  (unsigned long long)stack_map_figure(four, "shared"));
	json_object_put(four);
}
