// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap against the ground truth that the traced program records about itself: every
 * worker thread, every libgt function under both attribution rules, and the library,
 * exactly, in run and attach modes; and again with program and library built without
 * frame pointers, where only .eh_frame unwinding finds the entry functions.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(groundtruth, .timeout = 120);

static const char *const every_field[] = { "current", "min", "max", "requested", NULL };

static void check_report(const char *report_path, const char *truth_path, const char *rule)
{
	json_object *report = load_json(report_path), *truth = load_json(truth_path);
	json_object *processes = get(report, "processes"), *process;
	json_object *threads, *functions, *truth_threads, *truth_functions;
	char what[256];

	cr_assert(eq(int, json_object_get_int(get(report, "heaptap")), 2));
	cr_assert(eq(str, (char *)json_object_get_string(get(report, "attribution")), (char *)rule));
	cr_assert(eq(sz, json_object_array_length(processes), 1));
	process = json_object_array_get_idx(processes, 0);
	cr_expect(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));
	cr_expect(json_object_is_type(get(process, "rank"), json_type_null));

	threads = get(process, "threads");
	truth_threads = get(truth, "threads");
	cr_assert(eq(sz, json_object_array_length(truth_threads), 4), "the target ran 4 workers");
	assert_threads(threads, truth_threads, rule);

	functions = get(process, "functions");
	truth_functions = get(truth, strcmp(rule, "entry") ? "caller_functions" : "entry_functions");
	cr_assert(json_object_array_length(truth_functions) >= 6);
	snprintf(what, sizeof(what), "%s rule", rule);
	assert_libgt_functions(functions, truth_functions, what);
	assert_libgt_library(process, truth, every_field, "library libgt.so");
	json_object_put(report);
	json_object_put(truth);
}

/*
 * consumers: NULL for heaptap's default (one thread for one process), else --consumers
 * with it: a single process is exact whatever the threads that read the events.
 */
static void run_mode(const char *program, const char *rule, const char *consumers)
{
	char target[4096], json[256], truth[256], text[256];
	char *argv[] = { (char *)heaptap_path(), "run", "--dmatp", "-a", (char *)rule,
			 consumers ? "--consumers" : "-a", consumers ? (char *)consumers : (char *)rule,
			 "--json", (char *)scratch_file("report.json", json, sizeof(json)), "-o",
			 (char *)scratch_file("report.txt", text, sizeof(text)), "--",
			 (char *)target_path(program, target, sizeof(target)), "--truth",
			 (char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };
	char *report;

	require_bpf();
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	check_report(json, truth, rule);

	/* --dmatp: the text report has DMATP's sections, in DMATP's order. */
	report = slurp(text);
	cr_assert(report != NULL);
	cr_assert(strstr(report, "==== Statistics of overall memory usage") != NULL);
	cr_assert(strstr(report, "Statistics of overall") < strstr(report, "individual thread"));
	cr_assert(strstr(report, "individual thread") < strstr(report, "individual library"));
	cr_assert(strstr(report, "individual library") < strstr(report, "individual function"));
	cr_assert(strstr(report, "Thread ID:") && strstr(report, "worker-3"));
	free(report);
}

Test(groundtruth, run_entry_rule)
{
	run_mode("groundtruth", "entry", NULL);
}

/*
 * The command run starts, named like an MPI launcher (mpiexec: a symbolic link to the
 * ground-truth program). Launchers are not stopped at their exec and loader events, the
 * command heaptap starts is, until probed: it used to run its course before its probes
 * were placed, every call unseen and nothing said.
 */
Test(groundtruth, a_command_named_like_a_launcher)
{
	char target[4096], link[256], json[256], truth[256];
	char *argv[] = { (char *)heaptap_path(), "run", "-a", "caller", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o", "/dev/null",
			 "--", (char *)scratch_file("mpiexec", link, sizeof(link)), "--truth",
			 (char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };

	require_bpf();
	unlink(link);
	cr_assert(eq(int, symlink(target_path("groundtruth", target, sizeof(target)), link), 0),
		  "symlink %s: %s", link, strerror(errno));
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	check_report(json, truth, "caller");
}

Test(groundtruth, run_caller_rule)
{
	run_mode("groundtruth", "caller", NULL);
}

Test(groundtruth, run_without_frame_pointers)
{
	run_mode("groundtruth_nofp", "entry", NULL);
}

Test(groundtruth, run_with_four_consumers)
{
	run_mode("groundtruth", "entry", "4");
	run_mode("groundtruth", "caller", "4");
	run_mode("groundtruth_nofp", "entry", "4");
}

static void attach_mode(const char *program, const char *rule, const char *consumers)
{
	char target_bin[4096], json[256], truth[256], out[256], err[256], pid_arg[32];
	char *target_argv[] = { (char *)target_path(program, target_bin, sizeof(target_bin)),
				"--wait", "--truth",
				(char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };
	pid_t target, tracer;
	char *report;

	require_bpf();
	target = spawn(target_argv, NULL, NULL);
	snprintf(pid_arg, sizeof(pid_arg), "%d", target);
	{
		char *argv[] = { (char *)heaptap_path(), "attach", "-a", (char *)rule, "-p", pid_arg,
				 consumers ? "--consumers" : "-a",
				 consumers ? (char *)consumers : (char *)rule, "--json",
				 (char *)scratch_file("report.json", json, sizeof(json)),
				 NULL };

		tracer = spawn(argv, scratch_file("out.txt", out, sizeof(out)),
			       scratch_file("err.txt", err, sizeof(err)));
	}
	expect_attached(tracer, target, err);
	kill(target, SIGUSR1);
	cr_assert(eq(int, wait_status(target, 60), 0));
	/* heaptap stops by itself once every target has exited. */
	cr_assert(eq(int, wait_status(tracer, 30), 0), "heaptap: %s", slurp(err));
	check_report(json, truth, rule);
	report = slurp(out);
	cr_assert(report && strstr(report, "----- Libraries, and the functions in each"),
		  "attach prints the text report on standard output");
	cr_expect(strstr(report, "\nSince attaching: ") != NULL, "%s", report);
	free(report);
}

Test(groundtruth, attach_entry_rule)
{
	attach_mode("groundtruth", "entry", NULL);
}

Test(groundtruth, attach_caller_rule)
{
	attach_mode("groundtruth", "caller", NULL);
}

Test(groundtruth, attach_without_frame_pointers)
{
	attach_mode("groundtruth_nofp", "entry", NULL);
}

Test(groundtruth, attach_with_four_consumers)
{
	attach_mode("groundtruth", "entry", "4");
	attach_mode("groundtruth_nofp", "caller", "4");
}

/*
 * A static program carries its own malloc. Every thread must match, except that direct
 * calls cannot tell memalign from aligned_alloc (one address, no PLT): their sum must.
 */
static void static_program(const char *consumers)
{
	char target[4096], json[256], truth[256];
	char *argv[] = { (char *)heaptap_path(), "run", consumers ? "--consumers" : "-a",
			 consumers ? (char *)consumers : "entry", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o", "/dev/null",
			 "--", (char *)target_path("groundtruth_static", target, sizeof(target)),
			 "--truth", (char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };
	static const char *const fields[] = { "current", "min", "max", "requested", NULL };
	json_object *report, *process, *want_threads;

	require_bpf();
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	report = load_json(json);
	process = json_object_array_get_idx(get(report, "processes"), 0);
	cr_assert(process != NULL);
	cr_expect(json_object_get_boolean(get(process, "usable_known")),
		  "glibc linked in: its chunk headers give usable sizes");
	want_threads = get(load_json(truth), "threads");
	for (size_t i = 0; i < json_object_array_length(want_threads); i++) {
		json_object *want = json_object_array_get_idx(want_threads, i);
		long long tid = json_object_get_int64(get(want, "tid"));
		json_object *got = find_by_int(get(process, "threads"), "tid", tid);
		json_object *got_calls, *want_calls;
		char what[64];

		cr_assert(got != NULL, "thread %lld missing", tid);
		snprintf(what, sizeof(what), "static thread %lld", tid);
		assert_fields(got, want, fields, what);
		got_calls = get(got, "calls");
		want_calls = get(want, "calls");
		json_object_object_foreach(want_calls, name, count) {
			long long have = json_object_get_int64(get(got_calls, name));
			long long expect = json_object_get_int64(count);

			if (!strcmp(name, "memalign") || !strcmp(name, "aligned_alloc"))
				continue;
			snprintf(what, sizeof(what), "static thread %lld: %s", tid, name);
			cr_expect(have == expect, "%s calls %lld, truth %lld", what, have, expect);
		}
		cr_expect(json_object_get_int64(get(got_calls, "memalign")) +
				  json_object_get_int64(get(got_calls, "aligned_alloc")) ==
			  json_object_get_int64(get(want_calls, "memalign")) +
				  json_object_get_int64(get(want_calls, "aligned_alloc")),
			  "static thread %lld: memalign + aligned_alloc", tid);
	}
	json_object_put(report);
}

Test(groundtruth, a_static_program)
{
	static_program(NULL);
}

Test(groundtruth, a_static_program_with_four_consumers)
{
	static_program("4");
}

/*
 * Workers that exit run glibc's thread-exit cleanup, which frees the thread's cache of
 * blocks the program had already freed: that must not be charged again. Balances stay
 * exact; only free calls may exceed the truth, by glibc's own free(NULL)s.
 */
static void threads_that_exit(const char *consumers)
{
	char target[4096], json[256], truth[256], err[256];
	char *argv[] = { (char *)heaptap_path(), "run", "-v", consumers ? "--consumers" : "-a",
			 consumers ? (char *)consumers : "entry", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o", "/dev/null",
			 "--", (char *)target_path("groundtruth", target, sizeof(target)),
			 "--exit-workers", "--truth",
			 (char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };
	static const char *const fields[] = { "current", "min", "max", "requested", NULL };
	json_object *report, *process, *want_threads;
	int status;

	require_bpf();
	scratch_file("heaptap.err", err, sizeof(err));
	status = wait_status(spawn(argv, NULL, err), 60);
	cr_assert(status == 0, "heaptap exited %d; it said:\n%s", status, slurp(err));
	report = load_json(json);
	process = json_object_array_get_idx(get(report, "processes"), 0);
	cr_assert(process != NULL);
	want_threads = get(load_json(truth), "threads");
	for (size_t i = 0; i < json_object_array_length(want_threads); i++) {
		json_object *want = json_object_array_get_idx(want_threads, i);
		long long tid = json_object_get_int64(get(want, "tid"));
		json_object *got = find_by_int(get(process, "threads"), "tid", tid);
		long long frees, truth_frees;
		char what[64];

		cr_assert(got != NULL,
			  "thread %lld missing (%zu processes; this one %s, %lld holds skipped, "
			  "%lld events lost); heaptap said:\n%s",
			  tid, json_object_array_length(get(report, "processes")),
			  json_object_get_string(get_opt(process, "status")),
			  (long long)json_object_get_int64(get(process, "holds_skipped")),
			  (long long)json_object_get_int64(get(process, "lost_events")), slurp(err));
		snprintf(what, sizeof(what), "exited thread %lld", tid);
		assert_fields(got, want, fields, what);
		frees = json_object_get_int64(get(get(got, "calls"), "free"));
		truth_frees = json_object_get_int64(get(get(want, "calls"), "free"));
		cr_expect(frees >= truth_frees && frees <= truth_frees + 4,
			  "exited thread %lld: %lld frees, truth %lld", tid, frees, truth_frees);
	}
	json_object_put(report);
}

Test(groundtruth, threads_that_exit)
{
	threads_that_exit(NULL);
}

Test(groundtruth, threads_that_exit_with_four_consumers)
{
	threads_that_exit("4");
}
