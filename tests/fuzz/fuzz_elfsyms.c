// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ELF symbols as heaptap reads them from a target's files: through the symbol cache (the
 * file's .symtab or .dynsym, PT_LOADs, PT_INTERP, build id and the debug file it names),
 * then the same bytes read again as a separate debug file.
 */
#include <string.h>
#include "elfsyms.h"
#include "fuzz_file.h"
#include "symcache.h"

/* Every name handed out must be a readable C string: ASan checks the bytes strlen reads. */
static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

static void query(const struct elfsyms *syms, const uint8_t *data, size_t size)
{
	static const char *const names[] = { "malloc", "free", "main", "_start", "" };
	size_t step = size / 32 + 1;

	/* Offsets the file itself holds are the ones its symbols are likeliest to cover. */
	for (size_t i = 0; i + 4 <= size; i += step) {
		uint32_t off;

		memcpy(&off, data + i, sizeof(off));
		touch(elfsyms__lookup(syms, off));
		touch(elfsyms__lookup(syms, i));
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
		query(obj->syms, data, size);
		/*
		 * Inputs of odd length are read again as the debug file of a stripped library:
		 * one parse for the others keeps the fuzzer fast.
		 */
		if (size % 2 && elfsyms__load_debug(obj->syms, path) == 0)
			query(obj->syms, data, size);
	}
	symcache__free(cache);
	return 0;
}
