// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A library dlopen'ed after attach, built without frame pointers, gets its unwind table
 * before its code runs: the stacks of its constructor's malloc and of its work are whole.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(dlopen, .timeout = 90);

/* The stack whose frames 1.. are these functions, innermost first; NULL if none. */
static json_object *stack_through(const char *stacks_path, const char *const chain[],
				  size_t nr)
{
	char *text = slurp(stacks_path), *save = NULL;
	json_object *found = NULL;

	cr_assert(text != NULL, "no --stacks file");
	for (char *line = strtok_r(text, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		json_object *stack = json_tokener_parse(line), *frames;
		bool match;

		cr_assert(stack != NULL, "not JSON: %s", line);
		frames = get(stack, "frames");
		match = json_object_array_length(frames) > nr;
		for (size_t i = 0; match && i < nr; i++) {
			json_object *f = json_object_array_get_idx(frames, i + 1);

			match = !strcmp(json_object_get_string(get(f, "function")), chain[i]);
		}
		if (match)
			found = stack;
		else
			json_object_put(stack);
	}
	free(text);
	return found;
}

Test(dlopen, a_library_loaded_after_attach)
{
	static const char *const ctor[] = { "plugin_ctor" };
	static const char *const work[] = { "plugin_leaf", "plugin_middle", "plugin_work", "main" };
	char bin[4096], truth[256], stacks[256], json[256], err[256], pid_arg[32];
	char *target_argv[] = { (char *)target_path("dlopener", bin, sizeof(bin)), "--truth",
				(char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };
	char *argv[] = { (char *)heaptap_path(), "attach", "-p", pid_arg, "--stacks",
			 (char *)scratch_file("stacks.jsonl", stacks, sizeof(stacks)), "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), NULL };
	json_object *t, *report, *process, *stack;
	pid_t target, tracer;

	require_bpf();
	target = spawn(target_argv, NULL, NULL);
	snprintf(pid_arg, sizeof(pid_arg), "%d", target);
	tracer = spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err)));
	expect_attached(tracer, target, err);
	kill(target, SIGUSR1); /* now it loads the library */
	cr_assert(wait_for_text(truth, "work_calls", 30), "the target never finished its work");
	kill(tracer, SIGINT);
	cr_assert(eq(int, wait_status(tracer, 30), 0), "heaptap: %s", slurp(err));
	kill(target, SIGKILL);
	wait_status(target, 5);

	t = load_json(truth);
	report = load_json(json);
	process = json_object_array_get_idx(get(report, "processes"), 0);
	cr_expect(eq(i64, json_object_get_int64(get(process, "incomplete_stacks")), 0));
	cr_expect(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));

	stack = stack_through(stacks, ctor, 1);
	cr_assert(stack != NULL, "no stack through the library's constructor");
	cr_expect(json_object_get_boolean(get(stack, "complete")), "constructor stack incomplete");
	cr_expect(eq(i64, json_object_get_int64(get(stack, "calls")), 1));
	json_object_put(stack);

	stack = stack_through(stacks, work, 4);
	cr_assert(stack != NULL, "no stack plugin_leaf <- plugin_middle <- plugin_work <- main");
	cr_expect(json_object_get_boolean(get(stack, "complete")));
	cr_expect(eq(i64, json_object_get_int64(get(stack, "calls")),
		     json_object_get_int64(get(t, "work_calls"))));
	json_object_put(stack);
	json_object_put(report);
	json_object_put(t);
}
