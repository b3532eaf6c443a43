// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * --sample-bytes: the estimates against the truth sample_truth counts of itself
 * (malloc_usable_size). At 64K, each site holding at least 1% of the peak is within 3
 * standard errors of its truth in every run, and the mean of 20 runs (each drawn by the
 * kernel's prandom afresh) within 3%.
 *
 * Six sites in 20 runs are 120 estimates: with errors as normal as the standard error
 * says, 0.3 of them fall beyond 3 by chance, and one or more would in a quarter of the
 * test's runs. So: at most 2 of the 120 beyond 3 standard errors (a chance of 0.4% with
 * unbiased estimates and right errors), none beyond 5; a biased estimate or an error
 * said too small fails it.
 */
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(sampling, .timeout = 240);

#define RUNS 20
#define MAX_SITES 10

/* The site of an entry: the first frame in the program. */
static const char *site_of(json_object *entry)
{
	json_object *frames = get(entry, "frames");

	for (size_t i = 0; i < json_object_array_length(frames); i++) {
		json_object *f = json_object_array_get_idx(frames, i);
		const char *lib = json_object_get_string(get(f, "library"));
		size_t len = strlen(lib);

		if (len >= 13 && !strcmp(lib + len - 13, "/sample_truth"))
			return json_object_get_string(get(f, "function"));
	}
	return NULL;
}

/* A site's outstanding estimate and its variance, summed over its stacks. */
static void estimate_of(json_object *process, const char *name, double *bytes, double *var)
{
	json_object *list = get(process, "outstanding");

	*bytes = *var = 0;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *e = json_object_array_get_idx(list, i);
		const char *site = site_of(e);
		double se;

		if (!site || strcmp(site, name))
			continue;
		se = json_object_get_double(get_opt(e, "stderr_bytes"));
		*bytes += (double)json_object_get_int64(get(e, "bytes"));
		*var += se * se;
	}
}

static json_object *traced(const char *sample_bytes, char *truth, size_t truth_size)
{
	char target[4096], json[256];
	char *argv[] = { (char *)heaptap_path(), "run", "--sample-bytes", (char *)sample_bytes,
			 "--json", (char *)scratch_file("report.json", json, sizeof(json)), "-o",
			 "/dev/null", "--",
			 (char *)target_path("sample_truth", target, sizeof(target)), "--truth",
			 (char *)scratch_file("truth.json", truth, truth_size), NULL };

	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	return load_json(json);
}

Test(sampling, estimates_within_their_error)
{
	const char *names[MAX_SITES];
	double truths[MAX_SITES], sums[MAX_SITES] = { 0 };
	size_t nr = 0;
	int beyond_3 = 0;

	require_bpf();
	for (int run = 0; run < RUNS; run++) {
		char truth_path[256];
		json_object *report = traced("64K", truth_path, sizeof(truth_path));
		json_object *process = json_object_array_get_idx(get(report, "processes"), 0);
		json_object *truth = load_json(truth_path);
		double peak = 0;

		cr_assert(eq(i64, json_object_get_int64(get(get(process, "sampled"), "bytes")),
			     65536));
		cr_assert(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));
		json_object_object_foreach(get(truth, "sites"), name0, held0) {
			(void)name0;
			peak += (double)json_object_get_int64(held0);
		}
		nr = 0;
		json_object_object_foreach(get(truth, "sites"), name, held) {
			double want = (double)json_object_get_int64(held), got, var;

			if (want < peak / 100)
				continue; /* under 1% of the peak */
			cr_assert(nr < MAX_SITES);
			estimate_of(process, name, &got, &var);
			beyond_3 += fabs(got - want) > 3 * sqrt(var);
			cr_expect(fabs(got - want) <= 5 * sqrt(var),
				  "run %d, %s: %.0f bytes, truth %.0f, standard error %.0f", run,
				  name, got, want, sqrt(var));
			/* Said, not warned: Criterion fails a run that logs a warning. */
			if (fabs(got - want) > 3 * sqrt(var))
				fprintf(stderr, "run %d, %s: %.0f bytes, truth %.0f, beyond 3 "
					"standard errors (%.0f)\n", run, name, got, want, sqrt(var));
			names[nr] = strdup(name);
			truths[nr] = want;
			sums[nr++] += got;
		}
		json_object_put(truth);
		json_object_put(report);
	}
	cr_assert(nr >= 6, "the program's sites over 1%% of its peak");
	cr_expect(beyond_3 <= 2, "%d of %zu estimates beyond 3 standard errors", beyond_3,
		  nr * RUNS);
	for (size_t i = 0; i < nr; i++)
		cr_expect(fabs(sums[i] / RUNS - truths[i]) <= 0.03 * truths[i],
			  "%s: the mean of %d runs %.0f, truth %.0f", names[i], RUNS,
			  sums[i] / RUNS, truths[i]);
}

/* The same program without --sample-bytes (and with 0): every figure exact. */
Test(sampling, zero_is_exact)
{
	char truth_path[256];
	json_object *report = traced("0", truth_path, sizeof(truth_path));
	json_object *process = json_object_array_get_idx(get(report, "processes"), 0);
	json_object *truth = load_json(truth_path);

	require_bpf();
	cr_expect(json_object_get_type(get_opt(process, "sampled")) == json_type_null);
	json_object_object_foreach(get(truth, "sites"), name, held) {
		double got, var;

		estimate_of(process, name, &got, &var);
		(void)var;
		cr_expect(eq(i64, (long long)got, json_object_get_int64(held)), "%s", name);
	}
	json_object_put(truth);
	json_object_put(report);
}

/* Each of thread_calls' threads in the report (json) has the calls it counted (truth_path). */
static void expect_thread_calls(const char *json, const char *truth_path)
{
	json_object *report = load_json(json), *truth = load_json(truth_path);
	json_object *process = json_object_array_get_idx(get(report, "processes"), 0);
	json_object *exact;
	int threads = 0;

	cr_assert(eq(i64, json_object_get_int64(get(get(process, "sampled"), "bytes")), 65536));
	exact = get(get(process, "sampled"), "exact");
	cr_expect(eq(str, (char *)json_object_get_string(json_object_array_get_idx(exact, 0)),
		     "threads.calls"));
	json_object_object_foreach(get(truth, "threads"), tid, counts) {
		json_object *list = get(process, "threads"), *calls = NULL;

		for (size_t i = 0; i < json_object_array_length(list); i++) {
			json_object *th = json_object_array_get_idx(list, i);

			if (json_object_get_int64(get(th, "tid")) == atoll(tid))
				calls = get(th, "calls");
		}
		cr_assert(calls != NULL, "thread %s is not in the report", tid);
		json_object_object_foreach(counts, func, n) {
			cr_expect(eq(i64, json_object_get_int64(get(calls, func)),
				     json_object_get_int64(n)), "thread %s, %s", tid, func);
			cr_assert(json_object_get_int64(n) > 0);
		}
		threads++;
	}
	cr_expect(eq(int, threads, 4));
	json_object_put(truth);
	json_object_put(report);
}

/*
 * Each thread's calls in sampled mode, counted in BPF, against the counts each of
 * thread_calls' threads keeps of its own calls (realloc(NULL, n) among them: one call,
 * though glibc's realloc calls malloc), with and without session uprobes: the threads'
 * counts come in their exit events.
 */
static void thread_calls_exact(bool session)
{
	char target[4096], json[256], truth_path[256];
	char *argv[] = { (char *)heaptap_path(), "run", "--sample-bytes", "64K", "--json",
			 (char *)scratch_file("calls.json", json, sizeof(json)), "-o",
			 "/dev/null", "--",
			 (char *)target_path("thread_calls", target, sizeof(target)), "--truth",
			 (char *)scratch_file("calls_truth.json", truth_path, sizeof(truth_path)),
			 NULL };

	require_bpf();
	if (!session)
		setenv("HEAPTAP_NO_SESSION_UPROBES", "1", 1);
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	expect_thread_calls(json, truth_path);
}

Test(sampling, thread_calls_exact_with_sessions)
{
	thread_calls_exact(true);
}

Test(sampling, thread_calls_exact_without_sessions)
{
	thread_calls_exact(false);
}

/* The same of a process heaptap attached to and detached from, its threads alive. */
Test(sampling, thread_calls_exact_of_live_threads)
{
	char target_bin[4096], json[256], truth_path[256], err[256], pid_arg[16];
	char *target_argv[] = { (char *)target_path("thread_calls", target_bin,
						    sizeof(target_bin)),
				"--truth",
				(char *)scratch_file("calls_truth.json", truth_path,
						     sizeof(truth_path)),
				"--attach", NULL };
	pid_t target, tracer;

	require_bpf();
	target = spawn(target_argv, NULL, NULL);
	snprintf(pid_arg, sizeof(pid_arg), "%d", target);
	{
		char *argv[] = { (char *)heaptap_path(), "attach", "-p", pid_arg,
				 "--sample-bytes", "64K", "--json",
				 (char *)scratch_file("calls.json", json, sizeof(json)), NULL };

		tracer = spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err)));
	}
	expect_attached(tracer, target, err);
	kill(target, SIGUSR1);
	cr_assert(wait_for_text(truth_path, "}}", 60), "thread_calls wrote no truth");
	kill(tracer, SIGINT);
	cr_assert(eq(int, wait_status(tracer, 30), 0), "heaptap: %s", slurp(err));
	kill(target, SIGKILL);
	wait_status(target, 10);
	expect_thread_calls(json, truth_path);
}

/*
 * An ended process's sampled blocks leave the BPF side's table (an agent traces processes
 * for weeks: they would fill it, and its filter would send every release to it): at
 * --sample-bytes 1 every block is sampled, and the blocks the demo leaves allocated at
 * its exit, the report's outstanding samples, are the ones taken out of the table.
 */
Test(sampling, an_ended_process_leaves_no_sampled_blocks)
{
	char target[4096], json[256], err[256];
	char *argv[] = { (char *)heaptap_path(), "run", "-v", "--sample-bytes", "1", "--json",
			 (char *)scratch_file("demo.json", json, sizeof(json)), "-o", "/dev/null",
			 "--", (char *)target_path("demo", target, sizeof(target)), NULL };
	json_object *report, *process, *list;
	long long samples = 0, pid, forgotten = -1;
	const char *line;
	char *text;

	require_bpf();
	cr_assert(eq(int, wait_status(spawn(argv, "/dev/null",
					    scratch_file("demo.err", err, sizeof(err))), 60), 0));
	report = load_json(json);
	process = json_object_array_get_idx(get(report, "processes"), 0);
	pid = json_object_get_int64(get(process, "pid"));
	list = get(process, "outstanding");
	for (size_t i = 0; i < json_object_array_length(list); i++)
		samples += json_object_get_int64(get_opt(json_object_array_get_idx(list, i),
							 "samples"));
	text = slurp(err);
	for (line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		long long p, n;

		if (sscanf(line, "heaptap: process %lld: %lld sampled blocks still allocated", &p,
			   &n) == 2 && p == pid)
			forgotten = n;
	}
	cr_expect(samples > 0, "the demo leaves blocks allocated");
	cr_expect(eq(i64, forgotten, samples), "%s", text);
	free(text);
	json_object_put(report);
}
