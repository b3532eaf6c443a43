// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --stacks: every distinct stack that called the allocator, one JSON object per line. */
#include <stdio.h>
#include <json-c/json.h>
#include "report.h"

json_object *report_frame_json(const struct stack_frame *fr, bool detailed)
{
	json_object *f = json_object_new_object();

	json_object_object_add(f, "library", json_object_new_string(fr->library));
	if (detailed)
		json_object_object_add(f, "offset", json_object_new_uint64(fr->offset));
	json_object_object_add(f, "function", json_object_new_string(fr->function));
	/* The linker's name, beside the source's: null for inlined and unnamed code. */
	if (detailed)
		json_object_object_add(f, "symbol",
				       fr->symbol ? json_object_new_string(fr->symbol) : NULL);
	if (fr->file)
		json_object_object_add(f, "file", json_object_new_string(fr->file));
	if (fr->line)
		json_object_object_add(f, "line", json_object_new_int(fr->line));
	if (fr->inlined)
		json_object_object_add(f, "inlined", json_object_new_boolean(true));
	if (fr->tail_called)
		json_object_object_add(f, "tail_call", json_object_new_boolean(true));
	return f;
}

static json_object *stack_json(pid_t pid, const struct stack_record *rec)
{
	json_object *o = json_object_new_object(), *frames = json_object_new_array();

	json_object_object_add(o, "pid", json_object_new_int(pid));
	json_object_object_add(o, "calls", json_object_new_uint64(rec->calls));
	json_object_object_add(o, "complete", json_object_new_boolean(rec->complete));
	for (size_t i = 0; i < rec->nr; i++)
		json_object_array_add(frames, report_frame_json(&rec->frames[i], true));
	json_object_object_add(o, "frames", frames);
	return o;
}

void report_stacks(FILE *out, struct session *s)
{
	struct target **targets;
	size_t n = session__targets(s, &targets);

	for (size_t i = 0; i < n; i++) {
		const struct stack_record *rec, *tmp;

		HASH_ITER(hh, targets[i]->stacks.by_key, rec, tmp) {
			json_object *o;

			if (!rec->calls)
				continue; /* only housekeeping took this path */
			o = stack_json(targets[i]->pid, rec);
			fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
									  JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(o);
		}
	}
	fflush(out);
}
