// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stddef.h>
#include <string.h>
#include "frame_names.h"

/* Two kinds of answer for one offset of a file: as a return address, as code. */
enum { KIND_RETURN, KIND_CODE };

static uint64_t key_of(uint64_t offset, int kind)
{
	return offset << 1 | kind;
}

static size_t size_of(const struct frame_names *fn)
{
	return offsetof(struct frame_names, names) + fn->nr * sizeof(fn->names[0]);
}

/* What the answer's strings cost the budget (each counted, shared or not). */
static size_t string_bytes(const struct frame_names *fn)
{
	size_t bytes = fn->callee ? strlen(fn->callee) + 1 : 0;

	for (size_t i = 0; i < fn->nr; i++) {
		const struct named_frame *f = &fn->names[i];

		bytes += f->function ? strlen(f->function) + 1 : 0;
		bytes += f->symbol ? strlen(f->symbol) + 1 : 0;
		bytes += f->file ? strlen(f->file) + 1 : 0;
	}
	return bytes;
}

/* A signal handler's return address is the trampoline's first byte: named exactly. */
static uint64_t code_of(const struct object_file *obj, uint64_t ret_offset)
{
	return obj->syms && !elfsyms__lookup(obj->syms, ret_offset - 1) &&
			       elfsyms__lookup(obj->syms, ret_offset) ?
		       ret_offset :
		       ret_offset - 1;
}

/* Answer offset of obj anew, into *fn. false when out of memory. */
static bool answer(struct object_file *obj, uint64_t offset, int kind, struct frame_names *fn)
{
	memset(fn, 0, offsetof(struct frame_names, names));
	fn->code = kind == KIND_RETURN ? code_of(obj, offset) : offset;
	fn->nr = naming__at(obj, fn->code, fn->names, NAMING_MAX_CHAIN);
	if (!fn->nr)
		return false;
	fn->start_known = naming__function_start(obj, fn->code, &fn->start);
	if (kind == KIND_RETURN) {
		fn->direct = object_file__direct_target(obj, offset, &fn->target);
		if (!fn->direct)
			fn->callee = object_file__callee(obj, offset);
	}
	return true;
}

static const struct frame_names *names_of(struct object_file *obj, uint64_t offset, int kind,
					  struct frame_names *room)
{
	uint64_t key = key_of(offset, kind);
	const struct frame_names *kept = object_file__answer(obj, key);

	if (kept)
		return kept;
	symcache__lock(obj->cache);
	/* Another thread may have answered while this one waited: one answer for all. */
	if (!(kept = object_file__answer(obj, key)) && answer(obj, offset, kind, room)) {
		kept = object_file__keep_answer(obj, key, room, size_of(room), string_bytes(room));
		if (!kept)
			kept = room; /* no room in the budget: made again next time */
	}
	symcache__unlock(obj->cache);
	return kept;
}

const struct frame_names *frame_names__return(struct object_file *obj, uint64_t ret_offset,
					      struct frame_names *room)
{
	return names_of(obj, ret_offset, KIND_RETURN, room);
}

const struct frame_names *frame_names__code(struct object_file *obj, uint64_t offset,
					    struct frame_names *room)
{
	return names_of(obj, offset, KIND_CODE, room);
}
