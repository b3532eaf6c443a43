// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Stack ids never merge two stacks. With HEAPTAP_STACK_HASH_BITS=2 every stack's id is
 * one of three, so nearly all stacks collide: they must go on to other ids or inline, and
 * the ground truth must still come out exact per thread and per function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(stack_ids, .timeout = 120);

static size_t count_lines(const char *path)
{
	char *text = slurp(path);
	size_t n = 0;

	cr_assert(text != NULL, "no %s", path);
	for (const char *p = text; *p; p++)
		n += *p == '\n';
	free(text);
	return n;
}

Test(stack_ids, colliding_ids_never_merge_stacks)
{
	char target[4096], json[256], truth[256], stacks[256];
	char *argv[] = { (char *)heaptap_path(), "run", "-a", "caller", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "--stacks",
			 (char *)scratch_file("stacks.jsonl", stacks, sizeof(stacks)), "-o",
			 "/dev/null", "--",
			 (char *)target_path("groundtruth", target, sizeof(target)), "--truth",
			 (char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };
	json_object *report, *t, *process;
	size_t distinct;

	require_bpf();
	setenv("HEAPTAP_STACK_HASH_BITS", "2", 1);
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	report = load_json(json);
	t = load_json(truth);
	process = json_object_array_get_idx(get(report, "processes"), 0);
	cr_assert(process != NULL);
	cr_expect(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));
	cr_expect(eq(i64, json_object_get_int64(get(process, "incomplete_stacks")), 0));
	assert_threads(get(process, "threads"), get(t, "threads"), "colliding ids");
	assert_libgt_functions(get(process, "functions"), get(t, "caller_functions"),
			       "colliding ids");
	/* Far more distinct stacks than the three ids: most travelled inline. */
	distinct = count_lines(stacks);
	cr_expect(distinct > 20, "only %zu distinct stacks", distinct);
	json_object_put(report);
	json_object_put(t);
}
