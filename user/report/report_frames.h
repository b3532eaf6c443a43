/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A report's frames, each once (schema "heaptap": 2): the root's "frames" lists every
 * distinct frame ({"function", "library", ...} as schema 1 wrote it in place), and a frame
 * anywhere else is its index there. A call-tree node names its frame; a site or a mapping
 * stack names its "stack": a node of the root's "stacks", [out, frame] rows where out is the
 * node of the next frame out (-1 past the outermost), each stack's nodes shared by every
 * stack of the report that begins as it does.
 * Writing: a frame_table that hands out the indexes. Reading: report_frames, the same for
 * both schemas, so that every reader goes through one place.
 */
#ifndef HEAPTAP_REPORT_FRAMES_H
#define HEAPTAP_REPORT_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#define REPORT_SCHEMA 2 /* what heaptap writes; it reads 1 and 2 */

struct frame_table;

struct frame_table *frame_table__new(void);
void frame_table__free(struct frame_table *t);
/* The index of the frame (function, library); -1 when out of memory. */
int64_t frame_table__name(struct frame_table *t, const char *function, const char *library);
struct stack_record;
/*
 * The stack of a recorded stack (r, NULL: none): the node of its innermost frame, -1 for
 * none, into *node; its frames named once a report whatever the number of sites that name
 * it (and without building their JSON when they are in the table already). 0 or -ENOMEM.
 */
int frame_table__record(struct frame_table *t, const struct stack_record *r, bool detailed,
			int64_t *node);
/*
 * A process's sites (outstanding, allocated, peak.sites) and mapping stacks, their frames
 * each replaced by their stack. 0 or -ENOMEM.
 */
int frame_table__intern_process(struct frame_table *t, json_object *process);
/* The table as the root's "frames" (a new reference: it stays the table's). */
json_object *frame_table__json(struct frame_table *t);
/* The stacks as the root's "stacks" (the same). */
json_object *frame_table__stacks_json(struct frame_table *t);

/* A report read back: its schema, and (2) its frames. */
struct report_frames {
	int version;
	json_object *table; /* the root's "frames" (2), borrowed from the root */
	size_t nr;
	json_object *stacks; /* the root's "stacks" (2) */
	size_t nr_stacks;
};

/*
 * The schema of root and its frame table. 0, or -EINVAL after one logged line naming path
 * (not a report, a schema this heaptap does not read, a bad table).
 */
int report_frames__read(json_object *root, const char *path, struct report_frames *out);
/* The frame a reference names: the object itself (1), the table's entry (2); NULL if bad. */
json_object *report_frames__get(const struct report_frames *f, json_object *ref);
/* Schema 2's frame i; NULL when out of the table. */
json_object *report_frames__at(const struct report_frames *f, int64_t i);
/*
 * A process of schema 2 in the shape of schema 1: the stack of each of its sites and mapping
 * stacks replaced by its frames, innermost first, the frame objects shared with the table.
 * Nothing to do for schema 1. 0, -EINVAL (an index out of the tables) or -ENOMEM.
 */
int report_frames__expand_process(const struct report_frames *f, json_object *process);

/*
 * Schema 2's call-tree node: [parent, frame, current, min, max, requested, the calls of
 * each entry point in ht_func_names' order (10), and merged when above 1]; parent is the
 * index of an earlier node, -1 for a root.
 */
enum calltree_column {
	CALLTREE_PARENT,
	CALLTREE_FRAME,
	CALLTREE_CURRENT,
	CALLTREE_MIN,
	CALLTREE_MAX,
	CALLTREE_REQUESTED,
	CALLTREE_CALLS,
	CALLTREE_MERGED = CALLTREE_CALLS + 10,
};

#endif
