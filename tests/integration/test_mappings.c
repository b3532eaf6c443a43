// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The OS view against the truth the mappings program records: every function's mapped
 * bytes (current, min, max, by kind, malloc's own), its calls, what madvise released and
 * what it unmapped of memory mapped before tracing, exactly; in the program, in its
 * library, in a thread of its own; in run and attach modes, under both rules.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(mappings, .timeout = 120);

static const char *const map_fields[] = { "current", "min", "max", "anonymous", "file",
					  "brk", "malloc_own", NULL };
static const char *const count_fields[] = { "calls", "bytes", NULL };

static json_object *process_of(json_object *report, json_object *truth)
{
	json_object *processes[4];
	size_t n = processes_of(report, json_object_get_int(get(truth, "pid")), processes, 4);

	cr_assert(eq(sz, n, 1), "one report of the mappings program");
	return processes[0];
}

/* Every function of the truth whose library the rule names as the truth does. */
static void assert_functions(json_object *mappings, json_object *truth, bool program_too)
{
	json_object *functions = get(mappings, "functions"), *want_functions = get(truth, "functions");
	size_t checked = 0;
	char what[128], suffix[64];

	for (size_t i = 0; i < json_object_array_length(want_functions); i++) {
		json_object *want = json_object_array_get_idx(want_functions, i), *got;
		const char *name = json_object_get_string(get(want, "function"));
		const char *library = json_object_get_string(get(want, "library"));
		bool in_program = !strcmp(library, "mappings");

		snprintf(suffix, sizeof(suffix), "/%s", library);
		got = find_function(functions, name, suffix);
		if (in_program && !program_too) {
			/* Entry rule: the program's own calls are "(program)"'s, not its functions'. */
			cr_expect(got == NULL, "%s: charged to the program's function", name);
			continue;
		}
		cr_assert(got != NULL, "%s (%s) missing from mappings.functions", name, library);
		snprintf(what, sizeof(what), "mappings %s", name);
		assert_balance(got, want, map_fields, what);
		snprintf(what, sizeof(what), "mappings %s: released", name);
		assert_fields(get(got, "released"), get(want, "released"), count_fields, what);
		snprintf(what, sizeof(what), "mappings %s: unmapped before tracing", name);
		assert_fields(get(got, "unmapped_before_tracing"),
			      get(want, "unmapped_before_tracing"), count_fields, what);
		checked++;
	}
	cr_assert(checked >= (program_too ? 13u : 4u), "only %zu functions checked", checked);
}

/* The thread maps once and keeps it; glibc's own madvise at its exit is not the truth's. */
static void assert_thread(json_object *mappings, json_object *truth)
{
	json_object *want = get(truth, "thread");
	json_object *got = find_by_int(get(mappings, "threads"), "tid",
				       json_object_get_int64(get(want, "tid")));
	json_object *calls;

	cr_assert(got != NULL, "the mapper thread is missing from mappings.threads");
	cr_expect(eq(str, (char *)json_object_get_string(get(got, "name")), "mapper"));
	cr_expect(eq(i64, json_object_get_int64(get(got, "current")),
		     json_object_get_int64(get(want, "current"))));
	calls = get(got, "calls");
	cr_expect(eq(i64, json_object_get_int64(get(calls, "mmap")), 1));
	cr_expect(eq(i64, json_object_get_int64(get(calls, "munmap")), 0));
	cr_expect(eq(i64, json_object_get_int64(get(calls, "mremap")), 0));
	cr_expect(eq(i64, json_object_get_int64(get(calls, "brk")), 0));
}

/* The innermost frame of a stack in the program or libmaps: the function whose call it is. */
static json_object *calling_frame(json_object *stack)
{
	json_object *frames = get(stack, "frames");

	for (size_t i = 0; i < json_object_array_length(frames); i++) {
		json_object *f = json_object_array_get_idx(frames, i);
		const char *library = json_object_get_string(get(f, "library"));
		size_t len = strlen(library);

		if ((len > 9 && !strcmp(library + len - 9, "/mappings")) ||
		    (len > 11 && !strcmp(library + len - 11, "/libmaps.so")))
			return f;
	}
	return NULL;
}

/*
 * mappings.stacks: each function's calls of each kind, from the stacks whose calling frame
 * is that function, exactly as the function counted them; every such stack whole (malloc's
 * own mmap unwinds through malloc and big_malloc to main). A kind called from one stack
 * has that stack's min and max too.
 */
static void assert_stacks(json_object *mappings, json_object *truth)
{
	json_object *stacks = get(mappings, "stacks"), *functions = get(truth, "functions");
	size_t checked = 0;

	for (size_t i = 0; i < json_object_array_length(functions); i++) {
		json_object *fn = json_object_array_get_idx(functions, i), *sites = get(fn, "sites");
		const char *name = json_object_get_string(get(fn, "function"));
		char suffix[64];

		snprintf(suffix, sizeof(suffix), "/%s", json_object_get_string(get(fn, "library")));
		for (size_t j = 0; j < json_object_array_length(sites); j++) {
			json_object *site = json_object_array_get_idx(sites, j), *only = NULL;
			const char *call = json_object_get_string(get(site, "call"));
			long long current = 0, own = 0, calls = 0;
			size_t matched = 0;

			for (size_t k = 0; k < json_object_array_length(stacks); k++) {
				json_object *st = json_object_array_get_idx(stacks, k);
				json_object *f = calling_frame(st);
				const char *lib = f ? json_object_get_string(get(f, "library")) : "";

				if (!f || strcmp(json_object_get_string(get(st, "call")), call) ||
				    strcmp(json_object_get_string(get(f, "function")), name) ||
				    strlen(lib) < strlen(suffix) ||
				    strcmp(lib + strlen(lib) - strlen(suffix), suffix))
					continue;
				cr_expect(json_object_get_boolean(get(st, "complete")),
					  "%s's %s: a stack cut", name, call);
				current += json_object_get_int64(get(st, "current"));
				own += json_object_get_int64(get(st, "malloc_own"));
				calls += calls_of(st, call);
				only = st;
				matched++;
			}
			cr_assert(matched >= 1, "%s's %s: no stack in mappings.stacks", name, call);
			cr_expect(eq(i64, current, json_object_get_int64(get(site, "current"))),
				  "%s's %s: current", name, call);
			cr_expect(eq(i64, own, json_object_get_int64(get(site, "malloc_own"))),
				  "%s's %s: malloc_own", name, call);
			cr_expect(eq(i64, calls, json_object_get_int64(get(site, "calls"))),
				  "%s's %s: calls", name, call);
			if (matched == 1) {
				cr_expect(eq(i64, json_object_get_int64(get(only, "min")),
					     json_object_get_int64(get(site, "min"))),
					  "%s's %s: min", name, call);
				cr_expect(eq(i64, json_object_get_int64(get(only, "max")),
					     json_object_get_int64(get(site, "max"))),
					  "%s's %s: max", name, call);
			}
			checked++;
		}
	}
	cr_assert(checked >= 18, "only %zu calls checked", checked);
}

/* RSS samples: seconds that do not go back, resident bytes of a live process. */
static void assert_rss(json_object *mappings)
{
	json_object *rss = get(mappings, "rss");
	double last = -1;

	cr_assert(json_object_array_length(rss) >= 1, "no RSS sample");
	for (size_t i = 0; i < json_object_array_length(rss); i++) {
		json_object *sample = json_object_array_get_idx(rss, i);
		double t = json_object_get_double(json_object_array_get_idx(sample, 0));
		long long bytes = json_object_get_int64(json_object_array_get_idx(sample, 1));

		cr_expect(t >= last, "RSS sample %zu goes back in time", i);
		cr_expect(bytes >= 4096 && bytes % 4096 == 0, "RSS sample %zu: %lld bytes", i, bytes);
		last = t;
	}
}

static void check(const char *report_path, const char *truth_path, const char *rule)
{
	json_object *report = load_json(report_path), *truth = load_json(truth_path);
	json_object *process = process_of(report, truth), *mappings = get(process, "mappings");
	bool caller = !strcmp(rule, "caller");

	cr_expect(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));
	cr_assert(json_object_is_type(mappings, json_type_object), "no mappings section");
	assert_functions(mappings, truth, caller);
	assert_thread(mappings, truth);
	assert_stacks(mappings, truth);
	assert_rss(mappings);
	json_object_put(report);
	json_object_put(truth);
}

static void run_mode(const char *rule)
{
	char target[4096], json[256], truth[256], text[256];
	char *argv[] = { (char *)heaptap_path(), "run", "--dmatp", "-a", (char *)rule, "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o",
			 (char *)scratch_file("report.txt", text, sizeof(text)), "--",
			 (char *)target_path("mappings", target, sizeof(target)), "--truth",
			 (char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };
	char *report;

	require_bpf();
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	check(json, truth, rule);
	/* DMATP's text report: a Mappings section after DMATP's, with the functions in it. */
	report = slurp(text);
	cr_assert(report != NULL);
	cr_assert(strstr(report, "----- Mappings:") != NULL);
	cr_expect(strstr(report, "individual function") < strstr(report, "----- Mappings:"));
	cr_expect(strstr(strstr(report, "----- Mappings:"), "Function: lib_map_anon") != NULL);
	free(report);
}

Test(mappings, run_caller_rule)
{
	run_mode("caller");
}

Test(mappings, run_entry_rule)
{
	run_mode("entry");
}

/* Attached after it mapped 96 KiB: unmapping that is counted apart, never charged. */
Test(mappings, attach_caller_rule)
{
	char target_bin[4096], json[256], truth[256], err[256], pid_arg[32];
	char *target_argv[] = { (char *)target_path("mappings", target_bin, sizeof(target_bin)),
				"--wait", "--truth",
				(char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };
	pid_t target, tracer;

	require_bpf();
	target = spawn(target_argv, NULL, NULL);
	snprintf(pid_arg, sizeof(pid_arg), "%d", target);
	{
		char *argv[] = { (char *)heaptap_path(), "attach", "-a", "caller", "-p", pid_arg,
				 "--json", (char *)scratch_file("report.json", json, sizeof(json)),
				 NULL };

		tracer = spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err)));
	}
	expect_attached(tracer, target, err);
	kill(target, SIGUSR1);
	cr_assert(eq(int, wait_status(target, 60), 0));
	cr_assert(eq(int, wait_status(tracer, 30), 0), "heaptap: %s", slurp(err));
	check(json, truth, "caller");
}

/* Every group's figures of a kind add up to the process's. */
static void assert_groups_add_up(json_object *mappings, const char *groups, int rank)
{
	json_object *list = get(mappings, groups), *total = get(mappings, "total");
	long long current = 0, mmaps = 0;

	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *g = json_object_array_get_idx(list, i);

		current += json_object_get_int64(get(g, "current"));
		mmaps += json_object_get_int64(get(get(g, "calls"), "mmap"));
	}
	cr_expect(eq(i64, current, json_object_get_int64(get(total, "current"))),
		  "rank %d: %s' current adds up", rank, groups);
	cr_expect(eq(i64, mmaps, json_object_get_int64(get(get(total, "calls"), "mmap"))),
		  "rank %d: %s' mmap calls add up", rank, groups);
}

/*
 * Open MPI with its memory patcher active (osc ucx allowed, so that UCX's component asks
 * for memory hooks): libc's munmap jumps to Open MPI's hook, which makes the call. The job
 * prints the same with and without heaptap, and each rank's own calls are exact, charged
 * to the functions that called munmap, not to the hook.
 */
Test(mappings, mpi_memory_patcher, .timeout = 360)
{
	char target[4096], script[8192], plain[256], traced[256], err[256];
	char *plain_text, *traced_text;

	require_bpf();
	target_path("mpi_mappings", target, sizeof(target));
	{
		char *argv[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "osc",
				 "^pt2pt", "-np", "2", target, NULL };

		cr_assert(eq(int, wait_status(spawn(argv, scratch_file("plain.txt", plain,
								       sizeof(plain)), NULL), 120), 0));
	}
	snprintf(script, sizeof(script),
		 "exec %s run -a caller --json %s/rank-$OMPI_COMM_WORLD_RANK.json -o /dev/null -- "
		 "%s --truth-dir %s",
		 heaptap_path(), scratch_dir(), target, scratch_dir());
	{
		char *argv[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "osc",
				 "^pt2pt", "-np", "2", "sh", "-c", script, NULL };
		int status = wait_status(spawn(argv, scratch_file("traced.txt", traced,
								  sizeof(traced)),
					       scratch_file("mpirun.err", err, sizeof(err))), 150);

		cr_assert(eq(int, status, 0), "mpirun: %s", slurp(err));
	}
	plain_text = slurp(plain);
	traced_text = slurp(traced);
	cr_assert(plain_text && traced_text);
	/* Each rank prints one line; their order may differ between the runs. */
	for (char *line = strtok(plain_text, "\n"); line; line = strtok(NULL, "\n"))
		cr_expect(strstr(traced_text, line) != NULL, "traced output lacks \"%s\"", line);
	cr_expect(eq(int, lines_with(traced_text, "patched yes", NULL), 2),
		  "the memory patcher is active in both ranks: %s", traced_text);
	for (int rank = 0; rank < 2; rank++) {
		char path[256], name[64], what[64];
		json_object *report, *truth, *process, *mappings, *f;

		snprintf(name, sizeof(name), "rank-%d.json", rank);
		report = load_json(scratch_file(name, path, sizeof(path)));
		snprintf(name, sizeof(name), "truth-%d.json", rank);
		truth = load_json(scratch_file(name, path, sizeof(path)));
		process = json_object_array_get_idx(get(report, "processes"), 0);
		cr_assert(process != NULL);
		cr_expect(eq(int, json_object_get_int(get(process, "rank")), rank));
		cr_expect(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));
		mappings = get(process, "mappings");
		snprintf(what, sizeof(what), "rank %d", rank);

		f = find_function(get(mappings, "functions"), "rank_map", "/mpi_mappings");
		cr_assert(f != NULL, "%s: rank_map missing", what);
		cr_expect(eq(i64, json_object_get_int64(get(f, "current")),
			     json_object_get_int64(get(truth, "rank_map"))), "%s: rank_map", what);
		cr_expect(eq(i64, json_object_get_int64(get(f, "anonymous")),
			     json_object_get_int64(get(truth, "rank_map"))), "%s: rank_map", what);
		cr_expect(eq(i64, json_object_get_int64(get(get(f, "calls"), "mmap")), 1));

		/* Mapped whole, half unmapped through the patched munmap: charged here. */
		f = find_function(get(mappings, "functions"), "rank_scratch", "/mpi_mappings");
		cr_assert(f != NULL, "%s: rank_scratch missing", what);
		cr_expect(eq(i64, json_object_get_int64(get(f, "max")),
			     json_object_get_int64(get(truth, "rank_scratch"))), "%s", what);
		cr_expect(eq(i64, json_object_get_int64(get(f, "current")),
			     json_object_get_int64(get(truth, "rank_scratch")) / 2), "%s", what);
		cr_expect(eq(i64, json_object_get_int64(get(get(f, "calls"), "munmap")), 1));

		assert_groups_add_up(mappings, "functions", rank);
		assert_groups_add_up(mappings, "libraries", rank);
		assert_groups_add_up(mappings, "threads", rank);
		json_object_put(report);
		json_object_put(truth);
	}
	free(plain_text);
	free(traced_text);
}
