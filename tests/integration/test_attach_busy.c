// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Attach to threads that are calling malloc while their probes come in. A probe set that
 * saw a call's entry but not its return would silence the thread for good: each must
 * still show every call it makes afterwards.
 */
#include <signal.h>
#include <stdio.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(attach_busy, .timeout = 120);

Test(attach_busy, threads_calling_malloc_during_attach_keep_their_calls)
{
	char bin[4096], truth_path[256], json[256], err[256], pid_arg[32];
	char *target_argv[] = { (char *)target_path("busy_threads", bin, sizeof(bin)),
				"--truth", (char *)scratch_file("truth.json", truth_path,
								sizeof(truth_path)),
				NULL };
	json_object *report, *truth, *tids, *threads;
	pid_t target, tracer;
	int want;

	require_bpf();
	target = spawn(target_argv, NULL, NULL);
	snprintf(pid_arg, sizeof(pid_arg), "%d", target);
	{
		char *argv[] = { (char *)heaptap_path(), "attach", "-p", pid_arg, "--json",
				 (char *)scratch_file("report.json", json, sizeof(json)), NULL };

		tracer = spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err)));
	}
	expect_attached(tracer, target, err);
	kill(target, SIGUSR1);
	cr_assert(eq(int, wait_status(target, 60), 0), "busy_threads failed");
	cr_assert(eq(int, wait_status(tracer, 30), 0), "heaptap: %s", slurp(err));

	truth = load_json(truth_path);
	report = load_json(json);
	want = json_object_get_int(get(truth, "callocs"));
	tids = get(truth, "tids");
	threads = get(json_object_array_get_idx(get(report, "processes"), 0), "threads");
	for (size_t i = 0; i < json_object_array_length(tids); i++) {
		int tid = json_object_get_int(json_object_array_get_idx(tids, i));
		json_object *thread = find_by_int(threads, "tid", tid);

		cr_assert(thread != NULL, "thread %d, busy while heaptap attached, is not in the "
					  "report", tid);
		cr_expect(eq(int, json_object_get_int(get(get(thread, "calls"), "calloc")), want),
			  "thread %d: callocs made after the attach", tid);
	}
	json_object_put(truth);
	json_object_put(report);
}
