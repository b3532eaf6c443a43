// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap's stacks through code without frame pointers equal, frame by frame, the chains
 * the traced program recorded with libgcc's unwinder: recursion, a qsort comparator, a
 * zlib callback, a CFA that moves mid-body, a signal handler, a thread; and calls repeated
 * from the same place whose stacks differ above it (twin callers, other depths, longjmp,
 * coroutines on one stack, raised signals), which the stack cache must tell apart. A frame
 * whose CFA is a DWARF expression heaptap does not follow ends its stack there, visibly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(stack_chains, .timeout = 60);

/*
 * The frames the unwinder found: inlined functions (sharing the address of the frame they
 * are inlined into) and functions put back for their tail calls are names, not frames.
 */
static void keep_unwound_frames(json_object *stack)
{
	json_object *frames = get(stack, "frames"), *unwound = json_object_new_array();

	for (size_t i = 0; i < json_object_array_length(frames); i++) {
		json_object *f = json_object_array_get_idx(frames, i);

		if (!get_opt(f, "inlined") && !get_opt(f, "tail_call"))
			json_object_array_add(unwound, json_object_get(f));
	}
	json_object_object_add(stack, "frames", unwound);
}

static json_object *load_stacks(const char *path)
{
	json_object *stacks = json_object_new_array();
	char *text = slurp(path), *save = NULL;

	cr_assert(text != NULL, "no --stacks file");
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_object *stack = json_tokener_parse(line);

		cr_assert(stack != NULL, "not JSON: %s", line);
		keep_unwound_frames(stack);
		json_object_array_add(stacks, stack);
	}
	free(text);
	return stacks;
}

static bool same_frame(json_object *got, json_object *want)
{
	return json_object_get_int64(get(got, "offset")) ==
		       json_object_get_int64(get(want, "offset")) &&
	       !strcmp(json_object_get_string(get(got, "library")),
		       json_object_get_string(get(want, "library")));
}

/*
 * heaptap's frames: [0] malloc, [1] the return address after the recording function's
 * call to malloc, then its callers. The truth: the recording function's callers.
 */
static bool equals_truth(json_object *frames, json_object *truth_frames)
{
	size_t nr = json_object_array_length(truth_frames);

	if (json_object_array_length(frames) != nr + 2)
		return false;
	for (size_t i = 0; i < nr; i++) {
		if (!same_frame(json_object_array_get_idx(frames, i + 2),
				json_object_array_get_idx(truth_frames, i)))
			return false;
	}
	return true;
}

static char *describe(json_object *frames, size_t from)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	for (size_t i = from; i < json_object_array_length(frames); i++) {
		json_object *fr = json_object_array_get_idx(frames, i);
		const char *lib = json_object_get_string(get(fr, "library"));
		json_object *fn = json_object_object_get(fr, "function");

		fprintf(f, "\n    %s+0x%llx %s", strrchr(lib, '/') ? strrchr(lib, '/') + 1 : lib,
			(unsigned long long)json_object_get_int64(get(fr, "offset")),
			fn ? json_object_get_string(fn) : "");
	}
	fclose(f);
	return text;
}

/*
 * The calls from alloc_in_expression_frame: their stacks stop at that frame (malloc and
 * the return into it), are marked incomplete, and the report says why.
 */
static void expect_cut_at_expression(json_object *stacks, json_object *truth,
				     const char *json_path)
{
	long long calls = json_object_get_int64(get(truth, "expression_calls")), seen = 0;
	json_object *report = load_json(json_path);
	json_object *process = json_object_array_get_idx(get(report, "processes"), 0);

	for (size_t s = 0; s < json_object_array_length(stacks); s++) {
		json_object *stack = json_object_array_get_idx(stacks, s);
		json_object *frames = get(stack, "frames");
		json_object *caller = json_object_array_get_idx(frames, 1);

		if (!caller || strcmp(json_object_get_string(get(caller, "function")),
				      "alloc_in_expression_frame"))
			continue;
		cr_expect(json_object_get_boolean(get(stack, "complete")) == 0, "marked incomplete");
		cr_expect(eq(sz, json_object_array_length(frames), 2),
			  "nothing guessed past the frame it cannot unwind");
		seen += json_object_get_int64(get(stack, "calls"));
	}
	cr_expect(eq(i64, seen, calls));
	cr_assert(process != NULL);
	cr_expect(eq(i64, json_object_get_int64(get(process, "unsupported_unwinds")), calls));
	cr_expect(json_object_get_int64(get(process, "incomplete_stacks")) >= calls);
	json_object_put(report);
}

/*
 * The repeated cases are exact only if the per-thread stack cache told their stacks apart:
 * show that it was used at all (each case repeats its last call REPEATS times).
 */
static void expect_stacks_from_the_cache(const char *json_path)
{
	json_object *report = load_json(json_path);
	json_object *cache = get(report, "stack_cache");

	cr_expect(json_object_get_int64(get(cache, "hits")) >= 50,
		  "the repeated calls' stacks came from the cache (hits %lld, walks %lld)",
		  (long long)json_object_get_int64(get(cache, "hits")),
		  (long long)json_object_get_int64(get(cache, "walks")));
	json_object_put(report);
}

Test(stack_chains, equal_the_chains_the_program_recorded)
{
	char target[4096], truth_path[256], stacks_path[256], json_path[256];
	char *argv[] = { (char *)heaptap_path(), "run", "-o", "/dev/null", "--json",
			 (char *)scratch_file("report.json", json_path, sizeof(json_path)), "--stacks",
			 (char *)scratch_file("stacks.jsonl", stacks_path, sizeof(stacks_path)),
			 "--", (char *)target_path("stack_chains", target, sizeof(target)),
			 "--truth", (char *)scratch_file("truth.json", truth_path, sizeof(truth_path)),
			 NULL };
	json_object *truth, *cases, *stacks;

	require_bpf();
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	truth = load_json(truth_path);
	stacks = load_stacks(stacks_path);
	cases = get(truth, "cases");
	cr_assert(json_object_array_length(cases) >= 6, "the program recorded its cases");

	for (size_t c = 0; c < json_object_array_length(cases); c++) {
		json_object *want = json_object_array_get_idx(cases, c);
		const char *function = json_object_get_string(get(want, "function"));
		json_object *match = NULL, *candidate = NULL;
		char *wanted, *got;

		for (size_t s = 0; s < json_object_array_length(stacks) && !match; s++) {
			json_object *stack = json_object_array_get_idx(stacks, s);
			json_object *frames = get(stack, "frames");
			json_object *caller = json_object_array_get_idx(frames, 1);

			if (!caller ||
			    strcmp(json_object_get_string(get(caller, "function")), function))
				continue;
			candidate = stack;
			if (equals_truth(frames, get(want, "frames")))
				match = stack;
		}
		if (match) {
			long long calls = json_object_get_int64(get(want, "calls"));

			cr_expect(json_object_get_boolean(get(match, "complete")),
				  "%s: the stack is whole but not marked complete", function);
			/* A repeated case: each of its calls has its own stack, no other's. */
			if (calls)
				cr_expect(eq(i64, json_object_get_int64(get(match, "calls")), calls),
					  "%s: calls with this stack", function);
			continue;
		}
		wanted = describe(get(want, "frames"), 0);
		got = candidate ? describe(get(candidate, "frames"), 2) : strdup(" (none)");
		cr_expect(false, "%s: the program recorded%s\n  heaptap has%s", function, wanted,
			  got);
		free(wanted);
		free(got);
	}
	expect_cut_at_expression(stacks, truth, json_path);
	expect_stacks_from_the_cache(json_path);
	json_object_put(stacks);
	json_object_put(truth);
}
