// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include "profile_input.h"

/* Deeper stacks than any unwinder gives: a report with more is not heaptap's. */
#define MAX_FRAMES 4096

static json_object *field(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool is(json_object *o, json_type type)
{
	return o && json_object_is_type(o, type);
}

/*
 * An entry's frames into out (pointing into the JSON; none for the calls whose stacks were
 * not recorded): 0, or -EINVAL. *inline_kinds is set when a frame says whether it is
 * inlined (reports that do, say it of every inlined one).
 */
static int read_frames(json_object *frames, struct stack_frame *out, size_t *nr,
		       bool *inline_kinds)
{
	if (!is(frames, json_type_array) || (*nr = json_object_array_length(frames)) > MAX_FRAMES)
		return -EINVAL;
	for (size_t i = 0; i < *nr; i++) {
		json_object *f = json_object_array_get_idx(frames, i);
		json_object *fn = field(f, "function"), *lib = field(f, "library");
		json_object *file = field(f, "file"), *line = field(f, "line");
		json_object *inlined = field(f, "inlined"), *offset = field(f, "offset");

		if (!is(fn, json_type_string) || !is(lib, json_type_string) ||
		    (file && !is(file, json_type_string)) || (line && !is(line, json_type_int)) ||
		    (inlined && !is(inlined, json_type_boolean)) ||
		    (offset && !is(offset, json_type_int)))
			return -EINVAL;
		out[i] = (struct stack_frame){
			.function = json_object_get_string(fn),
			.library = json_object_get_string(lib),
			.file = file ? json_object_get_string(file) : NULL,
			.line = line ? json_object_get_int(line) : 0,
			.offset = offset ? (uint64_t)json_object_get_int64(offset) : 0,
			.inlined = inlined && json_object_get_boolean(inlined),
		};
		*inline_kinds |= inlined != NULL;
	}
	return 0;
}

/* A count or a size: a whole number, 0 or more. */
static bool read_count(json_object *o, const char *key, int64_t *out)
{
	json_object *v = field(o, key);

	if (!is(v, json_type_int) || json_object_get_int64(v) < 0)
		return false;
	*out = json_object_get_int64(v);
	return true;
}

/* One list of sites ({frames, blocks, bytes}), as the figures blocks_value and the next. */
static int read_sites(json_object *list, const struct profile_labels *process,
		      enum profile_value blocks_value, struct heap_profile *p,
		      struct stack_frame *frames)
{
	bool inline_kinds = false;
	int err;

	if (!is(list, json_type_array))
		return -EINVAL;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *site = json_object_array_get_idx(list, i);
		struct profile_labels labels = *process;
		int64_t values[PROFILE_NR_VALUES] = { 0 }, tid = 0;
		size_t nr;

		if (read_frames(field(site, "frames"), frames, &nr, &inline_kinds) ||
		    !read_count(site, "blocks", &values[blocks_value]) ||
		    !read_count(site, "bytes", &values[blocks_value + 1]) ||
		    (field(site, "tid") && !read_count(site, "tid", &tid)))
			return -EINVAL;
		labels.tid = (int)tid;
		err = heap_profile__add(p, &labels, frames, nr, values,
					PROFILE_VALUE(blocks_value) |
						PROFILE_VALUE(blocks_value + 1));
		if (err)
			return err;
	}
	if (inline_kinds)
		heap_profile__set_inline_known(p);
	return 0;
}

int profile_read_json_process(json_object *process, const struct profile_labels *labels,
			      struct heap_profile *p, const char **what)
{
	json_object *outstanding = field(process, "outstanding"), *peak = field(process, "peak");
	json_object *allocated = field(process, "allocated");
	struct stack_frame *frames = malloc(MAX_FRAMES * sizeof(*frames));
	int err = frames ? 0 : -ENOMEM;

	json_object *sampled = field(process, "sampled");
	int64_t sample_bytes;

	if (sampled && is(sampled, json_type_object) && read_count(sampled, "bytes", &sample_bytes))
		heap_profile__set_sample_bytes(p, (uint64_t)sample_bytes);
	/* allocated first: it names every site, the other lists some of them. */
	if (!err && allocated) {
		*what = "allocated";
		err = read_sites(allocated, labels, PROFILE_ALLOC_BLOCKS, p, frames);
	}
	if (!err && outstanding) {
		*what = "outstanding";
		err = read_sites(outstanding, labels, PROFILE_INUSE_BLOCKS, p, frames);
	}
	if (!err && peak) {
		*what = "peak";
		err = is(peak, json_type_object) ?
			      read_sites(field(peak, "sites"), labels, PROFILE_PEAK_BLOCKS, p,
					 frames) :
			      -EINVAL;
	}
	free(frames);
	return err;
}
