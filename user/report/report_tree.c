// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The inclusive call tree in the reports: text (--tree) and the JSON schema's calltree. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

static uint64_t all_calls(const struct balance *b)
{
	uint64_t n = 0;

	for (int f = 0; f < HT_NR_FUNCS; f++)
		n += b->calls[f];
	return n;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void print_level(FILE *out, const struct calltree_node *siblings, unsigned level,
			unsigned depth, bool *bounds)
{
	const struct calltree_node *n, *tmp;

	HASH_ITER(hh, siblings, n, tmp) {
		bool merged = n->merged > 1;

		*bounds |= merged;
		fprintf(out, "%12" PRId64 "%c %12" PRId64 " %12" PRId64 " %12" PRIu64 " %9" PRIu64
			     "  %*s%s",
			n->bal.max, merged ? '*' : ' ', n->bal.current, n->bal.min,
			n->bal.requested, all_calls(&n->bal), (int)(2 * level), "",
			n->key.function);
		if (n->key.library[0])
			fprintf(out, "  (%s)", base_name(n->key.library));
		fputc('\n', out);
		if (!depth || level + 1 < depth)
			print_level(out, n->children, level + 1, depth, bounds);
	}
}

int report_calltree_text(FILE *out, const struct calltree *t, const struct tree_opts *o)
{
	struct calltree under = {};
	bool bounds = false;

	if (o->under) {
		if (calltree__under(t, o->under, &under))
			return -ENOMEM;
		calltree__sort(&under);
		t = &under;
		if (!t->roots)
			fprintf(out, "(no call under %s)\n", o->under);
	}
	fprintf(out, "%13s %12s %12s %12s %9s  %s\n", "MAX", "CURRENT", "MIN", "REQUESTED",
		"CALLS", "FUNCTION (LIBRARY), callees indented");
	print_level(out, t->roots, 0, o->depth, &bounds);
	if (bounds)
		fprintf(out, "* %s at several places: current, requested and calls are sums; max "
			     "and min are the sums of each place's (bounds)\n",
			o->under);
	calltree__clear(&under);
	return 0;
}

void report_tree_heading(FILE *out, int pid, int rank, int world_size, const char *command)
{
	fprintf(out, "==== Call tree (inclusive, usable bytes) of PID %d", pid);
	if (rank >= 0)
		fprintf(out, ", rank %d", rank);
	if (world_size >= 0)
		fprintf(out, " of %d", world_size);
	fprintf(out, ": %s =====\n", command);
}

void report_trees(FILE *out, struct session *s, const struct tree_opts *o)
{
	struct target **targets;
	size_t n = session__targets(s, &targets);

	for (size_t i = 0; i < n; i++) {
		const struct target *t = targets[i];

		report_tree_heading(out, t->pid, t->mpi.rank, t->mpi.world_size, t->command);
		if (t->tree_lost)
			fprintf(out, "Calls not in the tree (out of memory): %" PRIu64 "\n",
				t->tree_lost);
		if (report_calltree_text(out, &t->tree, o))
			fprintf(out, "(out of memory: no tree)\n");
	}
	fflush(out);
}

static json_object *frame_json(const struct calltree_node *n)
{
	json_object *f = json_object_new_object();

	json_object_object_add(f, "function", json_object_new_string(n->key.function));
	json_object_object_add(f, "library", json_object_new_string(n->key.library));
	return f;
}

/* path holds the nodes above, outermost first. */
static void add_level(json_object *list, const struct calltree_node *siblings,
		      const struct calltree_node **path, unsigned level, unsigned depth)
{
	const struct calltree_node *n, *tmp;

	HASH_ITER(hh, siblings, n, tmp) {
		json_object *o = json_object_new_object(), *p = json_object_new_array();

		path[level] = n;
		for (unsigned i = 0; i <= level; i++)
			json_object_array_add(p, frame_json(path[i]));
		json_object_object_add(o, "path", p);
		report_json_balance(o, &n->bal);
		if (n->merged > 1)
			json_object_object_add(o, "merged", json_object_new_int64(n->merged));
		json_object_array_add(list, o);
		if (!depth || level + 1 < depth)
			add_level(list, n->children, path, level + 1, depth);
	}
}

static unsigned tree_height(const struct calltree_node *siblings)
{
	const struct calltree_node *n, *tmp;
	unsigned h = 0;

	HASH_ITER(hh, siblings, n, tmp) {
		unsigned below = 1 + tree_height(n->children);

		if (below > h)
			h = below;
	}
	return h;
}

json_object *report_calltree_json(const struct calltree *t, unsigned depth)
{
	json_object *list = json_object_new_array();
	unsigned height = tree_height(t->roots);
	const struct calltree_node **path = calloc(height ? height : 1, sizeof(*path));

	if (!path)
		return list;
	add_level(list, t->roots, path, 0, depth);
	free(path);
	return list;
}
