// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A report's frames, each once: written as a table, read back by index (report_frames.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "log.h"
#include "report_frames.h"

struct table_entry {
	char *key; /* function\0library\0, or a frame's JSON when it says more */
	size_t len;
	int64_t index;
	UT_hash_handle hh;
};

struct frame_table {
	struct table_entry *by_key;
	json_object *list;
	char *scratch;
	size_t scratch_cap;
};

struct frame_table *frame_table__new(void)
{
	struct frame_table *t = calloc(1, sizeof(*t));

	if (t && !(t->list = json_object_new_array())) {
		free(t);
		return NULL;
	}
	return t;
}

void frame_table__free(struct frame_table *t)
{
	struct table_entry *e, *tmp;

	if (!t)
		return;
	HASH_ITER(hh, t->by_key, e, tmp) {
		HASH_DEL(t->by_key, e);
		free(e->key);
		free(e);
	}
	json_object_put(t->list);
	free(t->scratch);
	free(t);
}

json_object *frame_table__json(struct frame_table *t)
{
	return json_object_get(t->list);
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

static int64_t name_key(struct frame_table *t, const char *function, const char *library,
			json_object *frame)
{
	size_t flen = strlen(function), llen = strlen(library), len = flen + llen + 2;
	json_object *made = NULL;

	if (len > t->scratch_cap) {
		char *grown = realloc(t->scratch, len);

		if (!grown) {
			json_object_put(frame);
			return -1;
		}
		t->scratch = grown;
		t->scratch_cap = len;
	}
	memcpy(t->scratch, function, flen + 1);
	memcpy(t->scratch + flen + 1, library, llen + 1);
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

static int intern_frames(struct frame_table *t, json_object *frames)
{
	size_t n = frames && json_object_is_type(frames, json_type_array) ?
			   json_object_array_length(frames) :
			   0;

	for (size_t i = 0; i < n; i++) {
		int64_t index = frame_index(t, json_object_array_get_idx(frames, i));

		if (index < 0 || json_object_array_put_idx(frames, i, json_object_new_int64(index)))
			return -ENOMEM;
	}
	return 0;
}

static json_object *field(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Each entry's "frames" of a list (sites, stacks), through fn. */
static int each_list(const void *t, json_object *list,
		     int (*fn)(const void *t, json_object *frames))
{
	size_t n = list && json_object_is_type(list, json_type_array) ?
			   json_object_array_length(list) :
			   0;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++)
		err = fn(t, field(json_object_array_get_idx(list, i), "frames"));
	return err;
}

static int each_site(const void *t, json_object *process,
		     int (*fn)(const void *t, json_object *frames))
{
	int err = each_list(t, field(process, "outstanding"), fn);

	if (!err)
		err = each_list(t, field(process, "allocated"), fn);
	if (!err)
		err = each_list(t, field(field(process, "peak"), "sites"), fn);
	if (!err)
		err = each_list(t, field(field(process, "mappings"), "stacks"), fn);
	return err;
}

static int intern(const void *t, json_object *frames)
{
	return intern_frames((struct frame_table *)t, frames);
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

static int expand(const void *p, json_object *frames)
{
	const struct report_frames *f = p;
	size_t n;

	if (!frames)
		return 0;
	if (!json_object_is_type(frames, json_type_array))
		return -EINVAL;
	n = json_object_array_length(frames);
	for (size_t i = 0; i < n; i++) {
		json_object *frame = report_frames__get(f, json_object_array_get_idx(frames, i));

		if (!frame)
			return -EINVAL;
		if (json_object_array_put_idx(frames, i, json_object_get(frame)))
			return -ENOMEM;
	}
	return 0;
}

int report_frames__expand_process(const struct report_frames *f, json_object *process)
{
	return f->version == 1 ? 0 : each_site(f, process, expand);
}
