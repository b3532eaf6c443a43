// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Schema 2 reports in schema 1's shape, for the tests (report_shape.h). */
#include <criterion/criterion.h>
#include "report_shape.h"

static const char *const calls[] = { "malloc", "calloc", "realloc", "reallocarray", "free",
				      "memalign", "posix_memalign", "aligned_alloc", "valloc",
				      "pvalloc" };

static json_object *field(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static json_object *frame(json_object *table, json_object *ref)
{
	int64_t i = json_object_get_int64(ref);

	cr_assert(json_object_is_type(ref, json_type_int) && i >= 0 &&
			  (size_t)i < json_object_array_length(table),
		  "a frame's index out of the report's frames: %s",
		  json_object_to_json_string(ref));
	return json_object_get(json_object_array_get_idx(table, i));
}

/* Each entry's "stack" (a node of the report's stacks) as its "frames", innermost first. */
static void expand_list(json_object *table, json_object *stacks, json_object *list)
{
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		json_object *entry = json_object_array_get_idx(list, i), *frames;
		int64_t node = json_object_get_int64(field(entry, "stack"));

		cr_assert(field(entry, "stack") != NULL, "an entry without its stack: %s",
			  json_object_to_json_string(entry));
		frames = json_object_new_array();
		while (node != -1) {
			json_object *row = json_object_array_get_idx(stacks, node);
			int64_t out;

			cr_assert(node >= 0 && row != NULL, "stack node %lld out of the stacks",
				  (long long)node);
			out = json_object_get_int64(json_object_array_get_idx(row, 0));
			cr_assert(out < node, "stack node %lld: the node out of it comes after it",
				  (long long)node);
			json_object_array_add(frames,
					      frame(table, json_object_array_get_idx(row, 1)));
			node = out;
		}
		json_object_object_del(entry, "stack");
		json_object_object_add(entry, "frames", frames);
	}
}

/* [parent, frame, current, min, max, requested, 10 calls, merged?] to {path, BAL, merged}. */
static json_object *tree_v1(json_object *table, json_object *rows)
{
	size_t n = json_object_array_length(rows);
	json_object *nodes = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		json_object *row = json_object_array_get_idx(rows, i), *node, *path, *counts;
		int64_t parent = json_object_get_int64(json_object_array_get_idx(row, 0));
		static const char *const figures[] = {"current", "min", "max", "requested"};

		cr_assert(json_object_array_length(row) >= 16 && parent >= -1 &&
				  parent < (int64_t)i,
			  "call-tree node %zu: %s", i, json_object_to_json_string(row));
		node = json_object_new_object();
		path = json_object_new_array();
		counts = json_object_new_object();
		if (parent >= 0) {
			json_object *up = field(json_object_array_get_idx(nodes, parent), "path");

			for (size_t k = 0; k < json_object_array_length(up); k++)
				json_object_array_add(
					path, json_object_get(json_object_array_get_idx(up, k)));
		}
		json_object_array_add(path, frame(table, json_object_array_get_idx(row, 1)));
		json_object_object_add(node, "path", path);
		for (int k = 0; k < 4; k++)
			json_object_object_add(
				node, figures[k],
				json_object_get(json_object_array_get_idx(row, 2 + k)));
		for (int k = 0; k < 10; k++)
			json_object_object_add(
				counts, calls[k],
				json_object_get(json_object_array_get_idx(row, 6 + k)));
		json_object_object_add(node, "calls", counts);
		if (json_object_array_length(row) > 16)
			json_object_object_add(node, "merged",
					       json_object_get(json_object_array_get_idx(row, 16)));
		json_object_array_add(nodes, node);
	}
	return nodes;
}

void report_v1_shape(json_object *report)
{
	json_object *table = field(report, "frames"), *processes = field(report, "processes");
	json_object *stacks = field(report, "stacks");

	cr_assert(table && json_object_is_type(table, json_type_array),
		  "a report of schema 2 without its frames");
	cr_assert(stacks && json_object_is_type(stacks, json_type_array),
		  "a report of schema 2 without its stacks");
	for (size_t i = 0; processes && i < json_object_array_length(processes); i++) {
		json_object *p = json_object_array_get_idx(processes, i),
			    *tree = field(p, "calltree");

		expand_list(table, stacks, field(p, "outstanding"));
		expand_list(table, stacks, field(p, "allocated"));
		expand_list(table, stacks, field(field(p, "peak"), "sites"));
		expand_list(table, stacks, field(field(p, "oom"), "sites"));
		expand_list(table, stacks, field(field(p, "mappings"), "stacks"));
		if (tree && json_object_is_type(tree, json_type_array))
			json_object_object_add(p, "calltree", tree_v1(table, tree));
	}
}
