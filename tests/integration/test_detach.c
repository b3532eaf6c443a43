// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* attach ends on SIGINT or after -d, reports, and leaves the target running unharmed. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(detach, .timeout = 90);

/* Start the parked ground-truth target and attach to it; returns heaptap's pid. */
static pid_t attach_to_parked_target(pid_t *target, const char *duration)
{
	char bin[4096], truth[256], out[256], err[256], pid_arg[32];
	char *target_argv[] = { (char *)target_path("groundtruth", bin, sizeof(bin)), "--wait",
				"--truth", (char *)scratch_file("truth.json", truth, sizeof(truth)),
				NULL };
	char *argv[8] = { (char *)heaptap_path(), "attach", "-p", pid_arg };
	pid_t tracer;

	*target = spawn(target_argv, NULL, NULL);
	snprintf(pid_arg, sizeof(pid_arg), "%d", *target);
	if (duration) {
		argv[4] = "-d";
		argv[5] = (char *)duration;
	}
	tracer = spawn(argv, scratch_file("out.txt", out, sizeof(out)),
		       scratch_file("err.txt", err, sizeof(err)));
	expect_attached(tracer, *target, err);
	return tracer;
}

/* The target, released after heaptap left, must do all its work and exit cleanly. */
static void expect_target_unharmed(pid_t target)
{
	char truth[256];
	json_object *t;

	kill(target, SIGUSR1);
	cr_assert(eq(int, wait_status(target, 30), 0), "the target failed after detach");
	t = load_json(scratch_file("truth.json", truth, sizeof(truth)));
	cr_expect(eq(sz, json_object_array_length(get(t, "threads")), 4));
	json_object_put(t);
}

Test(detach, on_sigint)
{
	char out[256];
	pid_t target, tracer;
	char *report;

	require_bpf();
	tracer = attach_to_parked_target(&target, NULL);
	kill(tracer, SIGINT);
	cr_assert(eq(int, wait_status(tracer, 20), 0));
	report = slurp(scratch_file("out.txt", out, sizeof(out)));
	cr_expect(report && strstr(report, "\nPeak: "), "%s", report);
	free(report);
	expect_target_unharmed(target);
}

Test(detach, after_duration)
{
	pid_t target, tracer;

	require_bpf();
	tracer = attach_to_parked_target(&target, "1");
	cr_assert(eq(int, wait_status(tracer, 20), 0), "-d 1 should end heaptap by itself");
	expect_target_unharmed(target);
}
