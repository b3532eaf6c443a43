// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The RSS a report gives: for a process shorter than the sampling interval, its peak
 * (VmHWM) and its last resident set as the kernel counted them when it exited; for one
 * still running, the peak read when its heap grew. Against what the program read of itself
 * in /proc/self/status.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"
#include "shell.h"

TestSuite(rss, .timeout = 60);

/*
 * The kernel's counters are per-CPU with a shared part both /proc and heaptap read; what
 * the program does after its read (fclose, exit) may fault in a few more pages.
 */
#define SLACK (512 * 1024ll)

/*
 * Does the kernel's exit tracepoint come before the memory is released? It moved there when
 * it got its group_dead argument, which its BTF shows.
 */
static bool exit_tracepoint_sees_memory(void)
{
	return sh(NULL, 60, "bpftool btf dump file /sys/kernel/btf/vmlinux format c | grep -q "
			    "'btf_trace_sched_process_exit)(void \\*, struct task_struct \\*, "
			    "bool)'") == 0;
}

Test(rss, peak_and_last_at_exit)
{
	char bin[4096], json[256], truth_path[256], text[256], *truth, *report_text;
	char *argv[] = { (char *)heaptap_path(), "run", "--json", json, "-o", text, "--bytes", "--",
			 (char *)target_path("rss_peak", bin, sizeof(bin)), truth_path, NULL };
	long long hwm_kb, rss_kb, peak, last;
	json_object *report, *mappings, *samples;
	char want[128];

	require_bpf();
	scratch_file("report.json", json, sizeof(json));
	scratch_file("report.txt", text, sizeof(text));
	scratch_file("truth.txt", truth_path, sizeof(truth_path));
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 30), 0));
	truth = slurp(truth_path);
	cr_assert(truth && sscanf(truth, "%lld %lld", &hwm_kb, &rss_kb) == 2, "truth: %s", truth);
	cr_assert(hwm_kb >= 16 * 1024, "the program's own peak: %lld kB", hwm_kb);
	report = load_json(json);
	mappings = get(json_object_array_get_idx(get(report, "processes"), 0), "mappings");
	if (!exit_tracepoint_sees_memory())
		cr_skip_test("this kernel's exit tracepoint comes after the memory is gone: no "
			     "RSS at exit");
	cr_assert(get_opt(mappings, "rss_peak") != NULL, "no rss_peak in the report");
	peak = json_object_get_int64(get(mappings, "rss_peak"));
	cr_expect(peak >= hwm_kb * 1024 && peak <= hwm_kb * 1024 + SLACK,
		  "peak RSS %lld bytes, the program's VmHWM %lld kB", peak, hwm_kb);
	samples = get(mappings, "rss");
	last = json_object_get_int64(json_object_array_get_idx(
		json_object_array_get_idx(samples, json_object_array_length(samples) - 1), 1));
	cr_expect(last >= rss_kb * 1024 - SLACK && last <= rss_kb * 1024 + SLACK,
		  "last RSS %lld bytes, the program's VmRSS %lld kB", last, rss_kb);
	/* The text report's line gives both, not the RSS of the program's first instant. */
	report_text = slurp(text);
	snprintf(want, sizeof(want), ", at most %lld\n", peak);
	cr_expect(report_text && strstr(report_text, want), "'%s' not in:\n%s", want,
		  report_text);
	json_object_put(report);
	free(report_text);
	free(truth);
}

/* A process attached to, whose heap grows while traced and then rests: its peak, read. */
Test(rss, peak_of_a_running_process)
{
	char bin[4096], json[256], err[256], truth_path[256], pid_arg[16], *truth;
	char *target_argv[] = { (char *)target_path("rss_grow", bin, sizeof(bin)), truth_path,
				NULL };
	char *argv[] = { (char *)heaptap_path(), "attach", "-p", pid_arg, "-d", "3", "--json",
			 json, "-o", "/dev/null", NULL };
	long long hwm_kb, peak;
	json_object *report, *mappings;
	pid_t target, tracer;

	require_bpf();
	scratch_file("report.json", json, sizeof(json));
	scratch_file("truth.txt", truth_path, sizeof(truth_path));
	target = spawn(target_argv, NULL, NULL);
	snprintf(pid_arg, sizeof(pid_arg), "%d", target);
	tracer = spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err)));
	expect_attached(tracer, target, err);
	kill(target, SIGUSR1);
	cr_assert(eq(int, wait_status(tracer, 30), 0));
	kill(target, SIGKILL);
	wait_status(target, 10);
	truth = slurp(truth_path);
	cr_assert(truth && sscanf(truth, "%lld", &hwm_kb) == 1, "truth: %s", truth);
	report = load_json(json);
	mappings = get(json_object_array_get_idx(get(report, "processes"), 0), "mappings");
	cr_assert(get_opt(mappings, "rss_peak") != NULL, "no rss_peak in the report");
	peak = json_object_get_int64(get(mappings, "rss_peak"));
	cr_expect(peak >= hwm_kb * 1024 - SLACK && peak <= hwm_kb * 1024 + SLACK,
		  "peak RSS %lld bytes, the program's VmHWM %lld kB", peak, hwm_kb);
	json_object_put(report);
	free(truth);
}
