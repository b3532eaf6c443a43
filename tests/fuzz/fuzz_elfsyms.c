// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ELF symbols as heaptap reads them from a target's files: through the symbol cache (the
 * file's .symtab or .dynsym, PT_LOADs, PT_INTERP, build id, debug link and the debug file
 * they name, MiniDebugInfo), names as naming.h makes them (labels, .eh_frame function
 * starts, DWARF inline chains, demangling), then the same bytes read again as a separate
 * debug file.
 */
#include <string.h>
#include "elfsyms.h"
#include "fuzz_file.h"
#include "frame_names.h"
#include "naming.h"
#include "symcache.h"

/* Every name handed out must be a readable C string: ASan checks the bytes strlen reads. */
static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

/* Every frame naming.h gives for the code at off, and frame_names.h for off as a return. */
static void name(struct object_file *obj, uint64_t off)
{
	struct named_frame frames[NAMING_MAX_CHAIN];
	size_t n = naming__at(obj, off, frames, NAMING_MAX_CHAIN);
	struct frame_names room;
	const struct frame_names *fn = frame_names__return(obj, off, &room);

	for (size_t i = 0; i < n; i++) {
		touch(frames[i].function);
		touch(frames[i].symbol);
		touch(frames[i].file);
	}
	for (size_t i = 0; fn && i < fn->nr; i++) {
		touch(fn->names[i].function);
		touch(fn->names[i].symbol);
		touch(fn->names[i].file);
	}
	if (fn)
		touch(fn->callee);
}

static void query(struct object_file *obj, const uint8_t *data, size_t size)
{
	static const char *const names[] = { "malloc", "free", "main", "_start", "" };
	const struct elfsyms *syms = obj->syms;
	size_t step = size / 32 + 1;
	uint64_t start;

	/* Offsets the file itself holds are the ones its symbols are likeliest to cover. */
	for (size_t i = 0; i + 4 <= size; i += step) {
		uint32_t off;

		memcpy(&off, data + i, sizeof(off));
		touch(elfsyms__lookup(syms, off));
		touch(elfsyms__lookup(syms, i));
		touch(elfsyms__label_before(syms, off, &start));
		name(obj, off);
		name(obj, i);
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		touch(elfsyms__lookup(syms, elfsyms__offset_of(syms, names[i])));
	touch(elfsyms__interp(syms));
	touch(elfsyms__build_id(syms));
	elfsyms__full(syms);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct symcache *cache = symcache__new();
	struct object_file *obj;

	if (!cache)
		return 0;
	obj = symcache__get(cache, 1 /* dev */, 1 /* inode */, path);
	if (obj && obj->syms) {
		query(obj, data, size);
		/*
		 * Inputs of odd length are read again as the debug file of a stripped library:
		 * one parse for the others keeps the fuzzer fast.
		 */
		if (size % 2 && elfsyms__load_debug(obj->syms, path) == 0)
			query(obj, data, size); /* naming.h caches nothing: the new table answers */
	}
	symcache__free(cache);
	return 0;
}
