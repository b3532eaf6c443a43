// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * --allocator: allocator APIs beyond the malloc family, against the truth the programs
 * record of their own calls (tests/targets/api_truth.h): TBB's scalable API called
 * directly, and a pool on top of malloc with a brk-like global heap (cpool.spec). Bad specs
 * stop heaptap with one line naming the file and line, and exit status 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(allocators, .timeout = 120);

static const char *const every_field[] = { "current", "min", "max", "requested", NULL };

static int compare_strings(const void *a, const void *b)
{
	return strcmp(json_object_get_string(*(json_object *const *)a),
		      json_object_get_string(*(json_object *const *)b));
}

/* Run program under --allocator api; its report's process. */
static json_object *traced(const char *api, const char *program, json_object **report,
			   json_object **truth)
{
	char target[4096], json[256], truth_path[256], text[256];
	char *argv[] = { (char *)heaptap_path(), "run", "--allocator", (char *)api, "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "--bytes", "-o",
			 (char *)scratch_file("report.txt", text, sizeof(text)),
			 "--", (char *)target_path(program, target, sizeof(target)), "--truth",
			 (char *)scratch_file("truth.json", truth_path, sizeof(truth_path)), NULL };
	json_object *process;

	require_bpf();
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	*report = load_json(json);
	*truth = load_json(truth_path);
	process = json_object_array_get_idx(get(*report, "processes"), 0);
	cr_assert(process != NULL);
	cr_expect(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));
	return process;
}

/* The text report (--bytes): the API's table opens with its total, now and peak. */
static void expect_api_text(const char *name, json_object *total)
{
	char path[256], heading[64], *text = slurp(scratch_file("report.txt", path, sizeof(path)));
	const char *at;
	long long now = -1, peak = -1;

	snprintf(heading, sizeof(heading), "----- Allocator %s (", name);
	at = text ? strstr(text, heading) : NULL;

	cr_assert(at != NULL, "no %s table in the text report: %s", heading, text);
	at = strchr(at, '\n') + 1;
	cr_expect(eq(int, sscanf(at, "%lld %lld  in all", &now, &peak), 2), "%s", at);
	cr_expect(eq(i64, now, json_object_get_int64(get(total, "current"))), "%s: now", name);
	cr_expect(eq(i64, peak, json_object_get_int64(get(total, "max"))), "%s: peak", name);
	free(text);
}

/* The API's entry in allocators[]: its balance and each thread's, exactly as the truth. */
static json_object *assert_api(json_object *process, json_object *truth, const char *name,
			       const char *library_suffix)
{
	json_object *api = find_by_str(get(process, "allocators"), "allocator", name);
	json_object *want_threads = get(truth, "threads");
	const char *library;

	cr_assert(api != NULL, "no allocators[] entry for %s", name);
	library = json_object_get_string(get(api, "library"));
	cr_assert(library && strstr(library, library_suffix), "%s's library: %s", name, library);
	cr_expect(not(json_object_get_boolean(get(api, "usable_known"))));
	assert_balance(api, get(truth, "total"), every_field, name);
	cr_assert(eq(sz, json_object_array_length(want_threads), 2));
	for (size_t i = 0; i < json_object_array_length(want_threads); i++) {
		json_object *want = json_object_array_get_idx(want_threads, i);
		long long tid = json_object_get_int64(get(want, "tid"));
		json_object *got = find_by_int(get(api, "threads"), "tid", tid);
		char what[64];

		cr_assert(got != NULL, "%s: thread %lld missing", name, tid);
		snprintf(what, sizeof(what), "%s thread %lld", name, tid);
		assert_balance(got, want, every_field, what);
	}
	expect_api_text(name, get(truth, "total"));
	return api;
}

Test(allocators, tbb_scalable_api_called_directly)
{
	json_object *report, *truth;
	json_object *process = traced("tbb", "tbb_user", &report, &truth);
	json_object *first = json_object_array_get_idx(get(process, "allocators"), 0);

	assert_api(process, truth, "tbb", "/libtbbmalloc.so.2");
	/* The malloc family's provider comes first: glibc's, its sizes read from headers. */
	cr_assert(eq(str, (char *)json_object_get_string(get(first, "allocator")), "glibc"));
	cr_expect(json_object_get_boolean(get(first, "usable_known")));
	json_object_put(report);
	json_object_put(truth);
}

/*
 * A pool on top of malloc shows in both views: its own API in its entry, and the mallocs
 * it makes in the malloc family's, under its functions. Its brk-like heap moves the
 * balance by each increment; failed moves only count.
 */
Test(allocators, a_pool_and_a_global_heap_from_a_spec)
{
	char spec[4096];
	json_object *report, *truth, *process, *api, *pool_alloc;

	process = traced(target_path("cpool.spec", spec, sizeof(spec)), "pool_user", &report,
			 &truth);
	api = assert_api(process, truth, "cpool", "/libcpool.so");
	cr_expect(eq(i64, calls_of(api, "brk"), 6));
	pool_alloc = find_function(get(process, "functions"), "pool_alloc", "/libcpool.so");
	cr_assert(pool_alloc != NULL, "the pool's mallocs are missing from the malloc family");
	cr_expect(eq(i64, calls_of(pool_alloc, "malloc"),
		     json_object_get_int64(get(get(get(truth, "total"), "calls"), "malloc"))));
	json_object_put(report);
	json_object_put(truth);
}

/* A --stacks file's lines without their pid, sorted: the same stacks compare equal. */
static json_object *stacks_without_pid(const char *path)
{
	json_object *lines = json_object_new_array();
	char *text = slurp(path), *line, *save = NULL;

	cr_assert(text != NULL, "no %s", path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_object *stack = json_tokener_parse(line);

		cr_assert(stack != NULL, "%s: not JSON: %s", path, line);
		json_object_object_del(stack, "pid");
		json_object_array_add(lines, json_object_new_string(json_object_to_json_string_ext(
						     stack, JSON_C_TO_STRING_PLAIN)));
		json_object_put(stack);
	}
	free(text);
	json_object_array_sort(lines, compare_strings);
	return lines;
}

/* Has the stack a frame in the program or its pool? (Not the loader's start-up.) */
static bool in_the_program(json_object *stack)
{
	json_object *frames = get(stack, "frames");

	for (size_t i = 0; i < json_object_array_length(frames); i++) {
		const char *library =
			json_object_get_string(get(json_object_array_get_idx(frames, i), "library"));

		if (strstr(library, "/pool_user") || strstr(library, "/libcpool.so"))
			return true;
	}
	return false;
}

/*
 * A report's mappings.stacks through the program, each as JSON text of its call, whether
 * complete and its frames, sorted. The loader's own start-up calls are left out: which of
 * them are charged depends on when heaptap found the allocator, later with an --allocator
 * spec to read. So are the figures: glibc trims a new thread's arena with one munmap or
 * two, as the kernel's address for it falls.
 */
static json_object *mapping_stacks(json_object *process)
{
	json_object *stacks = get(get(process, "mappings"), "stacks");
	json_object *lines = json_object_new_array();

	for (size_t i = 0; i < json_object_array_length(stacks); i++) {
		json_object *stack = json_object_array_get_idx(stacks, i), *shape;

		if (!in_the_program(stack))
			continue;
		shape = json_object_new_object();
		json_object_object_add(shape, "call", json_object_get(get(stack, "call")));
		json_object_object_add(shape, "complete", json_object_get(get(stack, "complete")));
		json_object_object_add(shape, "frames", json_object_get(get(stack, "frames")));
		json_object_array_add(lines, json_object_new_string(json_object_to_json_string_ext(
						     shape, JSON_C_TO_STRING_PLAIN)));
		json_object_put(shape);
	}
	json_object_array_sort(lines, compare_strings);
	return lines;
}

/*
 * pool_user's malloc-family stacks and, in *mappings, its OS view's, with the pool's probes
 * (spec not NULL) or without.
 */
static json_object *pool_user_stacks(const char *spec, const char *name, json_object **truth,
				     json_object **mappings)
{
	char target[4096], json[256], truth_path[256], stacks[256];
	char *argv[12] = { (char *)heaptap_path(), "run" }, **arg = argv + 2;
	json_object *report, *process, *lines;

	if (spec) {
		*arg++ = "--allocator";
		*arg++ = (char *)spec;
	}
	*arg++ = "--json";
	*arg++ = (char *)scratch_file("report.json", json, sizeof(json));
	*arg++ = "--stacks";
	*arg++ = (char *)scratch_file(name, stacks, sizeof(stacks));
	*arg++ = "--";
	*arg++ = (char *)target_path("pool_user", target, sizeof(target));
	*arg++ = "--truth";
	*arg = (char *)scratch_file("truth.json", truth_path, sizeof(truth_path));
	cr_assert(eq(int, wait_status(spawn(argv, "/dev/null", NULL), 60), 0));
	report = load_json(json);
	*truth = load_json(truth_path);
	process = json_object_array_get_idx(get(report, "processes"), 0);
	cr_assert(process != NULL);
	cr_expect(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));
	cr_expect(eq(i64, json_object_get_int64(get(process, "incomplete_stacks")), 0),
		  "%s: stacks cut", name);
	*mappings = mapping_stacks(process);
	json_object_put(report);
	lines = stacks_without_pid(stacks);
	return lines;
}

/* Stacks of mapping calls made inside gbrk, and inside a malloc inside pool_alloc: whole. */
static void assert_mappings_inside_the_pool(json_object *mappings)
{
	size_t inside_gbrk = 0, inside_pool_alloc = 0;

	for (size_t i = 0; i < json_object_array_length(mappings); i++) {
		const char *text = json_object_get_string(json_object_array_get_idx(mappings, i));
		json_object *stack = json_tokener_parse(text);
		json_object *frames = get(stack, "frames");

		for (size_t j = 0; j < json_object_array_length(frames); j++) {
			const char *function = json_object_get_string(
				get(json_object_array_get_idx(frames, j), "function"));

			inside_gbrk += !strcmp(function, "gbrk");
			inside_pool_alloc += !strcmp(function, "pool_alloc");
			if (!strcmp(function, "gbrk") || !strcmp(function, "pool_alloc"))
				cr_expect(json_object_get_boolean(get(stack, "complete")),
					  "cut: %s", text);
		}
		json_object_put(stack);
	}
	cr_expect(inside_gbrk >= 1, "no mapping stack through gbrk");
	cr_expect(inside_pool_alloc >= 1, "no mapping stack through pool_alloc");
}

/*
 * The pool's return probes replace pool_alloc's, pool_resize's and gbrk's return addresses
 * with the kernel's trampoline while they run: the mallocs, reallocs and frees they make,
 * and the mappings made inside them (gbrk's region, glibc's mmap of a large block), unwind
 * through them to main all the same, frame for frame as without the probes.
 */
Test(allocators, stacks_inside_a_probed_pool_call_are_whole)
{
	char spec[4096];
	json_object *truth, *probed, *plain, *probed_maps, *plain_maps;
	long long through_pool_alloc = 0;

	require_bpf();
	plain = pool_user_stacks(NULL, "plain.jsonl", &truth, &plain_maps);
	json_object_put(truth);
	probed = pool_user_stacks(target_path("cpool.spec", spec, sizeof(spec)), "probed.jsonl",
				  &truth, &probed_maps);
	cr_assert(eq(sz, json_object_array_length(probed), json_object_array_length(plain)));
	for (size_t i = 0; i < json_object_array_length(probed); i++) {
		const char *got = json_object_get_string(json_object_array_get_idx(probed, i));
		json_object *stack = json_tokener_parse(got);
		json_object *caller = json_object_array_get_idx(get(stack, "frames"), 1);

		cr_expect(eq(str, (char *)got,
			     (char *)json_object_get_string(json_object_array_get_idx(plain, i))));
		cr_expect(json_object_get_boolean(get(stack, "complete")), "cut: %s", got);
		if (caller && !strcmp(json_object_get_string(get(caller, "function")), "pool_alloc"))
			through_pool_alloc += json_object_get_int64(get(stack, "calls"));
		json_object_put(stack);
	}
	/* Every block the program asked the pool for is a malloc made inside pool_alloc. */
	cr_expect(eq(i64, through_pool_alloc, calls_of(get(truth, "total"), "malloc")));
	cr_assert(eq(sz, json_object_array_length(probed_maps),
		     json_object_array_length(plain_maps)));
	for (size_t i = 0; i < json_object_array_length(probed_maps); i++)
		cr_expect(eq(str,
			     (char *)json_object_get_string(json_object_array_get_idx(probed_maps, i)),
			     (char *)json_object_get_string(json_object_array_get_idx(plain_maps, i))));
	assert_mappings_inside_the_pool(probed_maps);
	json_object_put(probed_maps);
	json_object_put(plain_maps);
	json_object_put(probed);
	json_object_put(plain);
	json_object_put(truth);
}

/* heaptap run --allocator FILE with a spec of text; its status and standard error. */
static int run_with_spec(const char *text, char *err, size_t err_size)
{
	char spec[256], target[4096], truth[256];
	FILE *f = fopen(scratch_file("bad.spec", spec, sizeof(spec)), "w");
	char *argv[] = { (char *)heaptap_path(), "run", "--allocator", spec, "-o", "/dev/null",
			 "--", (char *)target_path("pool_user", target, sizeof(target)),
			 "--truth", (char *)scratch_file("truth.json", truth, sizeof(truth)),
			 NULL };

	cr_assert(f != NULL);
	fputs(text, f);
	fclose(f);
	return wait_status(spawn(argv, NULL, scratch_file("err.txt", err, err_size)), 60);
}

static void assert_one_line(const char *err_path, const char *want)
{
	char *err = slurp(err_path), spec[256], line[512];

	cr_assert(err != NULL);
	snprintf(line, sizeof(line), "heaptap: %s%s\n", scratch_file("bad.spec", spec,
								     sizeof(spec)), want);
	cr_expect(eq(str, err, line));
	free(err);
}

Test(allocators, an_unknown_kind)
{
	char err[256];

	cr_assert(eq(int, run_with_spec("pool_alloc malloc size=arg2\npool_release release "
					"ptr=arg2\n", err, sizeof(err)), 2));
	assert_one_line(err, ":2: unknown kind 'release': malloc, calloc, realloc, free, "
			     "memalign, posix_memalign or brk");
}

Test(allocators, a_missing_argument)
{
	char err[256];

	cr_assert(eq(int, run_with_spec("# pool\n\npool_resize realloc ptr=arg2\n", err,
					sizeof(err)), 2));
	assert_one_line(err, ":3: missing argument: pool_resize (realloc) needs size=argN");
}

Test(allocators, a_function_no_object_defines)
{
	char err[256], *text;

	require_bpf();
	cr_assert(eq(int, run_with_spec("pool_alloc malloc size=arg2\npool_frobnicate free "
					"ptr=arg1\n", err, sizeof(err)), 2));
	text = slurp(err);
	cr_assert(text != NULL);
	cr_expect(eq(int, lines_with(text, "bad.spec:2: pool_frobnicate: no object of process",
				     "defines it"), 1), "%s", text);
	cr_expect(eq(int, lines_with(text, "heaptap:", NULL), 1), "one line: %s", text);
	free(text);
}

/*
 * The ground-truth program under another allocator, preloaded: every worker thread, every
 * libgt function and the library exactly, with the allocator's own usable sizes as the
 * program reads them (malloc_usable_size). Entry points the allocator lacks are left
 * uncalled by libgt; extra_arg is groundtruth's (--aligned-sweep), or NULL.
 */
/* The report's process running program: env's image exec'd it, and ended there. */
static json_object *process_running(json_object *report, const char *program)
{
	json_object *processes = get(report, "processes");

	for (size_t i = 0; i < json_object_array_length(processes); i++) {
		json_object *p = json_object_array_get_idx(processes, i);

		if (!json_object_get_boolean(get(p, "exec")) &&
		    strstr(json_object_get_string(get(p, "command")), program))
			return p;
	}
	cr_assert(false, "no process ran %s", program);
	return NULL;
}

static void groundtruth_under(const char *library, const char *name, const char *extra_arg)
{
	char target[4096], json[256], truth_path[256], preload[256];
	char *argv[] = { (char *)heaptap_path(), "run", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o", "/dev/null",
			 "--", "env", preload, (char *)target_path("groundtruth", target,
								   sizeof(target)),
			 "--truth", (char *)scratch_file("truth.json", truth_path,
							 sizeof(truth_path)),
			 (char *)extra_arg, NULL };
	json_object *report, *truth, *process, *family;

	require_bpf();
	snprintf(preload, sizeof(preload), "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/%s", library);
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	report = load_json(json);
	truth = load_json(truth_path);
	process = process_running(report, "groundtruth");
	cr_expect(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));
	family = json_object_array_get_idx(get(process, "allocators"), 0);
	cr_assert(eq(str, (char *)json_object_get_string(get(family, "allocator")), (char *)name));
	cr_assert(json_object_get_boolean(get(family, "usable_known")),
		  "%s: every usable size known", name);
	cr_assert(eq(sz, json_object_array_length(get(truth, "threads")), 4));
	assert_threads(get(process, "threads"), get(truth, "threads"), name);
	assert_libgt_functions(get(process, "functions"), get(truth, "entry_functions"), name);
	assert_libgt_library(process, truth, every_field, name);
	json_object_put(report);
	json_object_put(truth);
}

Test(allocators, groundtruth_under_jemalloc)
{
	groundtruth_under("libjemalloc.so.2", "jemalloc", NULL);
}

Test(allocators, groundtruth_under_tcmalloc_minimal)
{
	groundtruth_under("libtcmalloc_minimal.so.4", "tcmalloc", NULL);
}

Test(allocators, groundtruth_under_tcmalloc_full)
{
	groundtruth_under("libtcmalloc.so.4", "tcmalloc", NULL);
}

/* Aligned blocks included: their sizes read from mimalloc's pages. */
Test(allocators, groundtruth_under_mimalloc)
{
	groundtruth_under("libmimalloc.so.2", "mimalloc", NULL);
}

/*
 * mimalloc carves an aligned block from a larger one at an offset its address decides;
 * mi_usable_size() gives what is left of that block. Every aligned entry point at many
 * alignments and sizes, each block's size exactly as the program reads it.
 */
Test(allocators, mimalloc_aligned_sweep)
{
	groundtruth_under("libmimalloc.so.2", "mimalloc", "--aligned-sweep");
}

Test(allocators, groundtruth_under_tbb_proxy)
{
	groundtruth_under("libtbbmalloc_proxy.so.2", "tbb", NULL);
}

