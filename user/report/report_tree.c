// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The inclusive call tree in the reports: text (--tree) and the JSON schema's calltree. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/printbuf.h>
#include "report.h"
#include "report_frames.h"
#include "printable.h"

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
	char shown[PRINTABLE_SIZE(512)];

	fprintf(out, "==== Call tree (inclusive, usable bytes) of PID %d", pid);
	if (rank >= 0)
		fprintf(out, ", rank %d", rank);
	if (world_size >= 0)
		fprintf(out, " of %d", world_size);
	fprintf(out, ": %s =====\n", printable(command, shown, sizeof(shown)));
}

void report_trees(FILE *out, struct session *s, const struct tree_opts *o)
{
	struct target **targets;
	size_t n = session__targets(s, &targets);

	for (size_t i = 0; i < n; i++) {
		const struct target *t = targets[i];

		report_tree_heading(out, t->pid, t->mpi.rank, t->mpi.world_size, t->command);
		if (t->tree_dropped)
			fprintf(out, "(tree dropped: ended processes' trees exceeded --tree-budget)\n");
		if (t->tree_lost)
			fprintf(out, "Calls not in the tree (out of memory): %" PRIu64 "\n",
				t->tree_lost);
		if (report_calltree_text(out, &t->tree, o))
			fprintf(out, "(out of memory: no tree)\n");
	}
	fflush(out);
}

static void put(struct printbuf *pb, const char *s)
{
	printbuf_memappend(pb, s, strlen(s));
}

/* A JSON string: names are ELF symbols and paths, but may hold anything. */
static void append_string(struct printbuf *pb, const char *s)
{
	printbuf_strappend(pb, "\"");
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			sprintbuf(pb, "\\%c", c);
		else if (c < 0x20)
			sprintbuf(pb, "\\u%04x", c);
		else
			printbuf_memappend(pb, s, 1);
	}
	printbuf_strappend(pb, "\"");
}

struct tree_output {
	const struct calltree *tree;
	unsigned depth;
	struct frame_table *names; /* schema 2; NULL: schema 1's paths */
	const struct calltree_node **path;
	int64_t *index, next; /* schema 2: the index of each node on the path, the next one's */
	bool first, pretty;
};

/* Schema 2's node: [parent, frame, current, min, max, requested, calls..., merged]. */
static void append_row(struct printbuf *pb, struct tree_output *o, const struct calltree_node *n,
		       unsigned level)
{
	const struct balance *b = &n->bal;

	o->index[level] = o->next++;
	sprintbuf(pb, "[%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64,
		  level ? o->index[level - 1] : (int64_t)-1,
		  frame_table__name(o->names, n->key.function, n->key.library), b->current,
		  b->min, b->max, b->requested);
	for (int f = 0; f < HT_NR_FUNCS; f++)
		sprintbuf(pb, ",%" PRIu64, b->calls[f]);
	if (n->merged > 1)
		sprintbuf(pb, ",%u", n->merged);
	printbuf_strappend(pb, "]");
}

static void append_level(struct printbuf *pb, struct tree_output *o,
			 const struct calltree_node *siblings, unsigned level)
{
	const struct calltree_node *n, *tmp;

	HASH_ITER(hh, siblings, n, tmp) {
		const struct balance *b = &n->bal;

		o->path[level] = n;
		/* One node a line; none in a report on one line (top -b --json). */
		put(pb, o->first ? "" : ",");
		o->first = false;
		if (o->names) {
			put(pb, o->pretty ? "\n" : "");
			append_row(pb, o, n, level);
			if (!o->depth || level + 1 < o->depth)
				append_level(pb, o, n->children, level + 1);
			continue;
		}
		put(pb, o->pretty ? "\n{\"path\":[" : "{\"path\":[");
		for (unsigned i = 0; i <= level; i++) {
			put(pb, i ? ",{\"function\":" : "{\"function\":");
			append_string(pb, o->path[i]->key.function);
			printbuf_strappend(pb, ",\"library\":");
			append_string(pb, o->path[i]->key.library);
			printbuf_strappend(pb, "}");
		}
		sprintbuf(pb, "],\"current\":%" PRId64 ",\"min\":%" PRId64 ",\"max\":%" PRId64
			      ",\"requested\":%" PRIu64 ",\"calls\":{",
			  b->current, b->min, b->max, b->requested);
		for (int f = 0; f < HT_NR_FUNCS; f++)
			sprintbuf(pb, "%s\"%s\":%" PRIu64, f ? "," : "", ht_func_names[f],
				  b->calls[f]);
		printbuf_strappend(pb, "}");
		if (n->merged > 1)
			sprintbuf(pb, ",\"merged\":%u", n->merged);
		printbuf_strappend(pb, "}");
		if (!o->depth || level + 1 < o->depth)
			append_level(pb, o, n->children, level + 1);
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

/*
 * Tens of thousands of nodes with a path each: written straight from the tree, one node a
 * line, rather than built as JSON objects first (a frame each: hundreds of MB).
 */
static int write_tree(json_object *list, struct printbuf *pb, int level, int flags)
{
	struct tree_output *o = json_object_get_userdata(list);
	unsigned height = tree_height(o->tree->roots);

	(void)level;
	o->pretty = flags & JSON_C_TO_STRING_PRETTY;
	o->path = calloc(height ? height : 1, sizeof(*o->path));
	o->index = calloc(height ? height : 1, sizeof(*o->index));
	if (!o->path || !o->index) {
		free(o->path);
		free(o->index);
		return -1;
	}
	o->first = true;
	o->next = 0;
	printbuf_strappend(pb, "[");
	append_level(pb, o, o->tree->roots, 0);
	printbuf_strappend(pb, "]");
	free(o->path);
	free(o->index);
	o->path = NULL;
	o->index = NULL;
	return 0;
}

static void free_output(json_object *list, void *userdata)
{
	(void)list;
	free(userdata);
}

/* The frames of the nodes written, into the table before it is written (it comes first). */
static int name_level(struct frame_table *names, const struct calltree_node *siblings,
		      unsigned level, unsigned depth)
{
	const struct calltree_node *n, *tmp;

	HASH_ITER(hh, siblings, n, tmp) {
		if (frame_table__name(names, n->key.function, n->key.library) < 0)
			return -ENOMEM;
		if ((!depth || level + 1 < depth) &&
		    name_level(names, n->children, level + 1, depth))
			return -ENOMEM;
	}
	return 0;
}

json_object *report_calltree_json(const struct calltree *t, unsigned depth,
				  struct frame_table *names)
{
	json_object *list = json_object_new_array();
	struct tree_output *o = calloc(1, sizeof(*o));

	if (!o)
		return list;
	if (names && name_level(names, t->roots, 0, depth)) {
		free(o);
		return list;
	}
	o->names = names;
	o->tree = t;
	o->depth = depth;
	json_object_set_serializer(list, write_tree, o, free_output);
	return list;
}
