// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A report's frames, each once: written as a table, read back by index (report_frames.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "log.h"
#include "report.h"
#include "report_frames.h"

struct table_entry {
	char *key; /* function\0library\0, or a frame's JSON when it says more */
	size_t len;
	int64_t index;
	UT_hash_handle hh;
};

struct stack_entry {
	int64_t key[2]; /* the next frame out's node (-1: none), the frame */
	int64_t index;
	UT_hash_handle hh;
};

/* A recorded stack already interned in this report: its node. */
struct record_entry {
	const struct stack_record *record;
	int64_t node;
	UT_hash_handle hh;
};

struct frame_table {
	struct table_entry *by_key;
	struct record_entry *records;
	json_object *list;
	char *scratch;
	size_t scratch_cap;
	struct stack_entry *stacks; /* the nodes of every stack, from its outermost frame in */
	json_object *stack_list;
};

struct frame_table *frame_table__new(void)
{
	struct frame_table *t = calloc(1, sizeof(*t));

	if (t && (!(t->list = json_object_new_array()) ||
		  !(t->stack_list = json_object_new_array()))) {
		json_object_put(t->list);
		free(t);
		return NULL;
	}
	return t;
}

void frame_table__free(struct frame_table *t)
{
	struct table_entry *e, *tmp;
	struct stack_entry *s, *stmp;
	struct record_entry *r, *rtmp;

	if (!t)
		return;
	HASH_ITER(hh, t->by_key, e, tmp) {
		HASH_DEL(t->by_key, e);
		free(e->key);
		free(e);
	}
	json_object_put(t->list);
	free(t->scratch);
	HASH_ITER(hh, t->stacks, s, stmp) {
		HASH_DEL(t->stacks, s);
		free(s);
	}
	json_object_put(t->stack_list);
	HASH_ITER(hh, t->records, r, rtmp) {
		HASH_DEL(t->records, r);
		free(r);
	}
	free(t);
}

json_object *frame_table__json(struct frame_table *t)
{
	return json_object_get(t->list);
}

json_object *frame_table__stacks_json(struct frame_table *t)
{
	return json_object_get(t->stack_list);
}

/* The node of frame below (inside) the node out; -1 when out of memory. */
static int64_t stack_node(struct frame_table *t, int64_t out, int64_t frame)
{
	int64_t key[2] = { out, frame };
	struct stack_entry *e;
	json_object *row;

	HASH_FIND(hh, t->stacks, key, sizeof(key), e);
	if (e)
		return e->index;
	if (!(e = calloc(1, sizeof(*e))) || !(row = json_object_new_array_ext(2))) {
		free(e);
		return -1;
	}
	json_object_array_add(row, json_object_new_int64(out));
	json_object_array_add(row, json_object_new_int64(frame));
	memcpy(e->key, key, sizeof(key));
	e->index = (int64_t)json_object_array_length(t->stack_list);
	if (json_object_array_add(t->stack_list, row)) {
		json_object_put(row);
		free(e);
		return -1;
	}
	HASH_ADD(hh, t->stacks, key, sizeof(e->key), e);
	return e->index;
}

/* The entry of key[0..len), added with frame (consumed) when new. -1: out of memory. */
static int64_t lookup(struct frame_table *t, const char *key, size_t len, json_object *frame)
{
	struct table_entry *e;

	HASH_FIND(hh, t->by_key, key, len, e);
	if (e) {
		json_object_put(frame);
		return e->index;
	}
	if (!frame || !(e = calloc(1, sizeof(*e))) || !(e->key = malloc(len))) {
		free(e);
		json_object_put(frame);
		return -1;
	}
	memcpy(e->key, key, len);
	e->len = len;
	e->index = (int64_t)json_object_array_length(t->list);
	if (json_object_array_add(t->list, frame)) {
		json_object_put(frame);
		free(e->key);
		free(e);
		return -1;
	}
	HASH_ADD_KEYPTR(hh, t->by_key, e->key, e->len, e);
	return e->index;
}

/* t->scratch made function\0library\0: the key of a frame that says only those. */
static int name_scratch(struct frame_table *t, const char *function, const char *library,
			size_t *len)
{
	size_t flen = strlen(function), llen = strlen(library);

	*len = flen + llen + 2;
	if (*len > t->scratch_cap) {
		char *grown = realloc(t->scratch, *len);

		if (!grown)
			return -ENOMEM;
		t->scratch = grown;
		t->scratch_cap = *len;
	}
	memcpy(t->scratch, function, flen + 1);
	memcpy(t->scratch + flen + 1, library, llen + 1);
	return 0;
}

static int64_t name_key(struct frame_table *t, const char *function, const char *library,
			json_object *frame)
{
	json_object *made = NULL;
	size_t len;

	if (name_scratch(t, function, library, &len)) {
		json_object_put(frame);
		return -1;
	}
	if (!frame) {
		struct table_entry *e;

		HASH_FIND(hh, t->by_key, t->scratch, len, e);
		if (e)
			return e->index;
		made = json_object_new_object();
		if (made) {
			json_object_object_add(made, "function", json_object_new_string(function));
			json_object_object_add(made, "library", json_object_new_string(library));
		}
		frame = made;
	}
	return lookup(t, t->scratch, len, frame);
}

int64_t frame_table__name(struct frame_table *t, const char *function, const char *library)
{
	return name_key(t, function, library, NULL);
}

/* A frame object's index: by its names when that is all it says, else by its whole text. */
static int64_t frame_index(struct frame_table *t, json_object *frame)
{
	json_object *fn = NULL, *lib = NULL;
	const char *text;

	if (!json_object_is_type(frame, json_type_object) ||
	    !json_object_object_get_ex(frame, "function", &fn) ||
	    !json_object_object_get_ex(frame, "library", &lib) ||
	    json_object_object_length(frame) != 2) {
		text = json_object_to_json_string_ext(frame, JSON_C_TO_STRING_PLAIN);
		return lookup(t, text, strlen(text), json_object_get(frame));
	}
	return name_key(t, json_object_get_string(fn), json_object_get_string(lib),
			json_object_get(frame));
}

/* A frame's index: by its names when that is all it says (no JSON made for it then). */
static int64_t frame_of(struct frame_table *t, const struct stack_frame *fr, bool detailed)
{
	json_object *frame;
	int64_t index;

	if (!detailed && !fr->file && !fr->line && !fr->inlined && !fr->tail_called)
		return name_key(t, fr->function, fr->library, NULL);
	frame = report_frame_json(fr, detailed);
	index = frame ? frame_index(t, frame) : -1;
	json_object_put(frame);
	return index;
}

int frame_table__record(struct frame_table *t, const struct stack_record *r, bool detailed,
			int64_t *node)
{
	struct record_entry *e;

	*node = -1;
	if (!r)
		return 0;
	HASH_FIND_PTR(t->records, &r, e);
	if (e) {
		*node = e->node;
		return 0;
	}
	for (size_t i = r->nr; i-- > 0;) {
		int64_t frame = frame_of(t, &r->frames[i], detailed);

		if (frame < 0 || (*node = stack_node(t, *node, frame)) < 0)
			return -ENOMEM;
	}
	if (!(e = malloc(sizeof(*e))))
		return -ENOMEM;
	e->record = r;
	e->node = *node;
	HASH_ADD_PTR(t->records, record, e);
	return 0;
}

/* An entry's frames (innermost first) replaced by its stack: the node of its innermost. */
static int intern_frames(struct frame_table *t, json_object *entry)
{
	json_object *frames = NULL;
	int64_t node = -1;
	size_t n;

	if (!json_object_object_get_ex(entry, "frames", &frames) ||
	    !json_object_is_type(frames, json_type_array))
		return 0;
	n = json_object_array_length(frames);
	for (size_t i = n; i-- > 0;) {
		int64_t frame = frame_index(t, json_object_array_get_idx(frames, i));

		if (frame < 0 || (node = stack_node(t, node, frame)) < 0)
			return -ENOMEM;
	}
	json_object_object_del(entry, "frames");
	return json_object_object_add(entry, "stack", json_object_new_int64(node)) ? -ENOMEM : 0;
}

static json_object *field(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Each entry of a list (sites, stacks), through fn. */
static int each_list(const void *t, json_object *list,
		     int (*fn)(const void *t, json_object *entry))
{
	size_t n = list && json_object_is_type(list, json_type_array) ?
			   json_object_array_length(list) :
			   0;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++)
		err = fn(t, json_object_array_get_idx(list, i));
	return err;
}

static int each_site(const void *t, json_object *process,
		     int (*fn)(const void *t, json_object *entry))
{
	int err = each_list(t, field(process, "outstanding"), fn);

	if (!err)
		err = each_list(t, field(process, "allocated"), fn);
	if (!err)
		err = each_list(t, field(field(process, "peak"), "sites"), fn);
	if (!err)
		err = each_list(t, field(field(process, "oom"), "sites"), fn);
	if (!err)
		err = each_list(t, field(field(process, "mappings"), "stacks"), fn);
	return err;
}

static int intern(const void *t, json_object *entry)
{
	return intern_frames((struct frame_table *)t, entry);
}

int frame_table__intern_process(struct frame_table *t, json_object *process)
{
	return each_site(t, process, intern);
}

int report_frames__read(json_object *root, const char *path, struct report_frames *out)
{
	json_object *version = field(root, "heaptap"), *processes = field(root, "processes");

	*out = (struct report_frames){};
	if (!version || !json_object_is_type(version, json_type_int) || !processes ||
	    !json_object_is_type(processes, json_type_array)) {
		log_error("%s is not a heaptap report (no \"heaptap\" schema with processes): "
			  "give the file heaptap --json wrote", path);
		return -EINVAL;
	}
	out->version = json_object_get_int(version);
	if (out->version != 1 && out->version != REPORT_SCHEMA) {
		log_error("%s is a heaptap report of schema %d; this heaptap reads schemas 1 and "
			  "%d: read it with the heaptap that wrote it", path, out->version,
			  REPORT_SCHEMA);
		return -EINVAL;
	}
	if (out->version == 1)
		return 0;
	out->table = field(root, "frames");
	if (!out->table || !json_object_is_type(out->table, json_type_array)) {
		log_error("%s: bad frames (a report of schema 2 lists its frames): give the file "
			  "heaptap --json wrote", path);
		return -EINVAL;
	}
	out->nr = json_object_array_length(out->table);
	/* null when the reader cut it out (it reads no site): a site's stack is then bad. */
	out->stacks = field(root, "stacks");
	if (out->stacks && !json_object_is_type(out->stacks, json_type_array) &&
	    !json_object_is_type(out->stacks, json_type_null)) {
		log_error("%s: bad stacks (a report of schema 2 lists its stacks): give the file "
			  "heaptap --json wrote", path);
		return -EINVAL;
	}
	out->nr_stacks = json_object_is_type(out->stacks, json_type_array) ?
				 json_object_array_length(out->stacks) :
				 0;
	return 0;
}

json_object *report_frames__at(const struct report_frames *f, int64_t i)
{
	return f->table && i >= 0 && (uint64_t)i < f->nr ? json_object_array_get_idx(f->table, i) :
							    NULL;
}

json_object *report_frames__get(const struct report_frames *f, json_object *ref)
{
	if (f->version == 1)
		return ref && json_object_is_type(ref, json_type_object) ? ref : NULL;
	if (!ref || !json_object_is_type(ref, json_type_int))
		return NULL;
	return report_frames__at(f, json_object_get_int64(ref));
}

/* An entry's stack replaced by its frames, innermost first (objects shared with the table). */
static int expand(const void *p, json_object *entry)
{
	const struct report_frames *f = p;
	json_object *stack = NULL, *frames;
	int64_t node;
	size_t depth = 0;

	if (!json_object_object_get_ex(entry, "stack", &stack))
		return 0;
	if (!json_object_is_type(stack, json_type_int) || !(frames = json_object_new_array()))
		return json_object_is_type(stack, json_type_int) ? -ENOMEM : -EINVAL;
	/* Each node names the frame out of it, a node before it: the walk ends. */
	for (node = json_object_get_int64(stack); node != -1; depth++) {
		json_object *row = node >= 0 && (size_t)node < f->nr_stacks ?
					   json_object_array_get_idx(f->stacks, node) :
					   NULL;
		json_object *out = row ? json_object_array_get_idx(row, 0) : NULL;
		json_object *frame = row ? report_frames__get(f, json_object_array_get_idx(row, 1)) :
					   NULL;

		if (!frame || !out || !json_object_is_type(out, json_type_int) ||
		    json_object_get_int64(out) >= node || depth > f->nr_stacks) {
			json_object_put(frames);
			return -EINVAL;
		}
		json_object_array_add(frames, json_object_get(frame));
		node = json_object_get_int64(out);
	}
	json_object_object_del(entry, "stack");
	return json_object_object_add(entry, "frames", frames) ? -ENOMEM : 0;
}

int report_frames__expand_process(const struct report_frames *f, json_object *process)
{
	return f->version == 1 ? 0 : each_site(f, process, expand);
}
