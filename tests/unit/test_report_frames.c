// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Schema 2's tables (report_frames.c): a process's sites written with each frame once and
 * each stack a node of the shared stacks read back as the frames they had; and the text scan
 * that cuts the call trees out (report_scan.c), their rows read by hand.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <json-c/json.h>
#include "report_frames.h"
#include "report_scan.h"

TestSuite(report_frames);

static json_object *frame(const char *function, const char *library, int line)
{
	json_object *f = json_object_new_object();

	json_object_object_add(f, "function", json_object_new_string(function));
	json_object_object_add(f, "library", json_object_new_string(library));
	if (line)
		json_object_object_add(f, "line", json_object_new_int(line));
	return f;
}

/* A site of frames (innermost first: names[0]), one a line number when line is set. */
static json_object *site(const char *const names[], size_t n, int line, int bytes)
{
	json_object *o = json_object_new_object(), *frames = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(frames, frame(names[i], "/lib/libx.so", i ? 0 : line));
	json_object_object_add(o, "frames", frames);
	json_object_object_add(o, "bytes", json_object_new_int(bytes));
	return o;
}

Test(report_frames, sites_read_back_as_written)
{
	static const char *const a[] = { "malloc", "grow", "init", "main" };
	static const char *const b[] = { "calloc", "grow", "init", "main" };
	static const char *const c[] = { "malloc", "main" };
	struct frame_table *t = frame_table__new();
	json_object *root = json_object_new_object(), *p = json_object_new_object(), *want, *back;
	json_object *list = json_object_new_array(), *peak = json_object_new_object();
	json_object *sites = json_object_new_array();
	struct report_frames f;
	const char *text;

	cr_assert(t != NULL);
	json_object_array_add(list, site(a, 4, 0, 10));
	json_object_array_add(list, site(b, 4, 0, 20));
	json_object_array_add(list, site(a, 4, 42, 30)); /* the same names, but a line */
	json_object_array_add(sites, site(c, 2, 0, 40));
	json_object_array_add(sites, site(a, 4, 0, 50));
	json_object_object_add(p, "allocated", list);
	json_object_object_add(peak, "sites", sites);
	json_object_object_add(p, "peak", peak);
	want = NULL;
	cr_assert(eq(int, json_object_deep_copy(p, &want, NULL), 0));

	json_object_object_add(root, "heaptap", json_object_new_int(2));
	json_object_object_add(root, "frames", frame_table__json(t));
	json_object_object_add(root, "stacks", frame_table__stacks_json(t));
	cr_assert(eq(int, frame_table__intern_process(t, p), 0));
	json_object_object_add(root, "processes", json_object_new_array());
	json_object_array_add(json_object_object_get(root, "processes"), p);
	/* Frames once: malloc, grow, init, main, calloc, malloc with its line. */
	cr_expect(eq(sz, json_object_array_length(json_object_object_get(root, "frames")), 6));
	/* Nodes once: main<init<grow<malloc, grow<calloc, grow<malloc:42, main<malloc. */
	cr_expect(eq(sz, json_object_array_length(json_object_object_get(root, "stacks")), 7));
	cr_expect(json_object_object_get(json_object_array_get_idx(list, 0), "frames") == NULL);

	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	back = json_tokener_parse(text);
	cr_assert(back != NULL);
	cr_assert(eq(int, report_frames__read(back, "test", &f), 0));
	cr_expect(eq(int, f.version, 2));
	p = json_object_array_get_idx(json_object_object_get(back, "processes"), 0);
	cr_assert(eq(int, report_frames__expand_process(&f, p), 0));
	for (int l = 0; l < 2; l++) {
		json_object *got_list = l ? json_object_object_get(json_object_object_get(p, "peak"),
								  "sites") :
					    json_object_object_get(p, "allocated");
		json_object *want_list = l ? json_object_object_get(
						     json_object_object_get(want, "peak"), "sites") :
					     json_object_object_get(want, "allocated");

		cr_assert(eq(sz, json_object_array_length(got_list),
			     json_object_array_length(want_list)));
		for (size_t i = 0; i < json_object_array_length(want_list); i++) {
			json_object *g = json_object_array_get_idx(got_list, i);
			json_object *w = json_object_array_get_idx(want_list, i);

			cr_expect(eq(str,
				     (char *)json_object_to_json_string(
					     json_object_object_get(g, "frames")),
				     (char *)json_object_to_json_string(
					     json_object_object_get(w, "frames"))));
			cr_expect(eq(int, json_object_get_int(json_object_object_get(g, "bytes")),
				     json_object_get_int(json_object_object_get(w, "bytes"))));
		}
	}
	json_object_put(back);
	json_object_put(root);
	json_object_put(want);
	frame_table__free(t);
}

Test(report_frames, a_stack_out_of_the_table_is_refused)
{
	json_object *root = json_tokener_parse(
		"{\"heaptap\": 2, \"frames\": [{\"function\": \"f\", \"library\": \"l\"}], "
		"\"stacks\": [[-1, 0], [5, 0]], \"processes\": [{\"allocated\": [{\"stack\": 1}]}]}");
	json_object *p;
	struct report_frames f;

	cr_assert(root != NULL);
	cr_assert(eq(int, report_frames__read(root, "test", &f), 0));
	p = json_object_array_get_idx(json_object_object_get(root, "processes"), 0);
	cr_expect(eq(int, report_frames__expand_process(&f, p), -EINVAL));
	json_object_put(root);
}

Test(report_frames, unknown_schema)
{
	json_object *root = json_tokener_parse("{\"heaptap\": 3, \"processes\": []}");
	struct report_frames f;

	cr_expect(eq(int, report_frames__read(root, "test", &f), -EINVAL));
	json_object_put(root);
}

Test(report_frames, rows_by_hand)
{
	const char *text = " [ [1,-2, 3],\n[4 ,5] ]";
	int64_t v[4];
	size_t at = 0, nr;

	cr_assert(eq(int, report_scan__row(text, &at, v, 4, &nr), 1));
	cr_expect(eq(sz, nr, 3));
	cr_expect(eq(i64, v[0], 1));
	cr_expect(eq(i64, v[1], -2));
	cr_expect(eq(i64, v[2], 3));
	cr_assert(eq(int, report_scan__row(text, &at, v, 4, &nr), 1));
	cr_expect(eq(sz, nr, 2));
	cr_expect(eq(i64, v[1], 5));
	cr_expect(eq(int, report_scan__row(text, &at, v, 4, &nr), 0));
	at = 0;
	cr_expect(eq(int, report_scan__row("[]", &at, v, 4, &nr), 0));
	at = 0;
	cr_expect(eq(int, report_scan__row("[[1,2.5]]", &at, v, 4, &nr), -EINVAL));
	at = 0;
	cr_expect(eq(int, report_scan__row("[[1,2,3,4,5]]", &at, v, 4, &nr), -EINVAL));
	at = 0;
	cr_expect(eq(int, report_scan__row("[[1,2]", &at, v, 4, &nr), 1));
	cr_expect(eq(int, report_scan__row("[[1,2]", &at, v, 4, &nr), -EINVAL), "cut short");
}

Test(report_frames, trees_cut_out_of_the_text)
{
	static const char *const drop[] = { "allocated", NULL };
	char text[] = "{\"heaptap\": 2, \"frames\": [{\"calltree\": [1]}], \"processes\": ["
		      "{\"pid\": 1, \"calltree\": [[-1, 0, \"]\"]], \"allocated\": [{\"x\": 1}]},"
		      "{\"pid\": 2},"
		      "{\"pid\": 3, \"calltree\": []}]}";
	struct report_cut cut;
	json_object *root, *p;

	cr_assert(eq(int, report_scan__cut(text, strlen(text), "calltree", drop, &cut), 0));
	cr_assert(eq(sz, cut.nr, 3));
	cr_expect(eq(str, cut.kept[0], "[[-1, 0, \"]\"]]"));
	cr_expect(cut.kept[1] == NULL);
	cr_expect(eq(str, cut.kept[2], "[]")); /* left in the text: no room for null */
	root = json_tokener_parse(text);
	cr_assert(root != NULL, "%s", text);
	p = json_object_array_get_idx(json_object_object_get(root, "processes"), 0);
	cr_expect(json_object_is_type(json_object_object_get(p, "calltree"), json_type_null));
	cr_expect(json_object_is_type(json_object_object_get(p, "allocated"), json_type_null));
	/* Only the processes' fields: the frames keep theirs. */
	cr_expect(json_object_is_type(json_object_object_get(json_object_array_get_idx(
			      json_object_object_get(root, "frames"), 0), "calltree"),
		      json_type_array));
	json_object_put(root);
	report_cut__clear(&cut);
}
