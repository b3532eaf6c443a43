// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "naming.h"
#include "source_name.h"

char *naming__offset_name(const char *object, uint64_t offset)
{
	const char *base = strrchr(object, '/');
	char *name;

	if (asprintf(&name, "%s+0x%llx", base ? base + 1 : object, (unsigned long long)offset) < 0)
		return NULL;
	return name;
}

/*
 * Rules 2 and 3 of naming.h: the symbol or label that names the function holding off, and
 * its start; NULL (and *start, when an FDE gives it) when only an offset can name it.
 */
static const char *symbol_at(struct object_file *obj, uint64_t off, uint64_t *start,
			     bool *start_known)
{
	const struct funcstarts *fs;
	const char *name = NULL;
	uint64_t label_start, fde_start;
	bool fde;

	*start_known = false;
	if (obj->syms && (name = elfsyms__find(obj->syms, off, start))) {
		*start_known = true;
		return name;
	}
	fs = object_file__starts(obj);
	fde = fs && funcstarts__start_of(fs, off, &fde_start);
	if (obj->syms && (name = elfsyms__label_before(obj->syms, off, &label_start)) &&
	    !(fde && fde_start > label_start)) {
		*start = label_start;
		*start_known = true;
		return name;
	}
	if (fde) {
		*start = fde_start;
		*start_known = true;
	}
	return NULL;
}

bool naming__function_start(struct object_file *obj, uint64_t offset, uint64_t *start)
{
	bool known;

	symbol_at(obj, offset, start, &known);
	return known;
}

/* The pool's copy of a string (NULL stays NULL); false when out of memory. */
static bool keep(struct object_file *obj, const char **s, size_t *bytes)
{
	if (!*s)
		return true;
	*bytes += strlen(*s) + 1;
	return (*s = strpool__intern(&obj->names, *s)) != NULL;
}

/* A source name for raw, kept in obj's pool. */
static const char *source_name(struct object_file *obj, const char *raw, size_t *bytes)
{
	char *name = source_name__of(raw);
	const char *kept = name;

	if (!name || !keep(obj, &kept, bytes))
		kept = NULL;
	free(name);
	return kept;
}

/* Rules 2 to 5 of naming.h, uncached. 0 when out of memory. */
static size_t name_code(struct object_file *obj, uint64_t off, struct named_frame *out,
			size_t max, size_t *bytes)
{
	struct inline_frame chain[NAMING_MAX_CHAIN];
	struct inlines *dwarf = NULL;
	uint64_t start, vaddr;
	bool start_known;
	const char *raw = symbol_at(obj, off, &start, &start_known);
	struct named_frame *holder;
	size_t n = 0;

	if (obj->syms && elfsyms__vaddr_of(obj->syms, off, &vaddr) &&
	    (dwarf = object_file__dwarf(obj)))
		n = inlines__at(dwarf, vaddr, chain, max);
	for (size_t i = 0; i + 1 < n; i++) {
		out[i] = (struct named_frame){ .file = chain[i].file, .line = chain[i].line,
					       .inlined = true };
		out[i].function = source_name(obj, chain[i].name, bytes);
		out[i].cxx_allocator = source_name__is_cxx_allocator(chain[i].name);
		if (!out[i].function || !keep(obj, &out[i].file, bytes))
			return 0;
	}
	holder = &out[n ? n - 1 : 0];
	*holder = (struct named_frame){};
	if (n) {
		holder->file = chain[n - 1].file;
		holder->line = chain[n - 1].line;
	}
	/* The symbol names the holder as every other output names it; DWARF where none does. */
	if (raw || n) {
		holder->symbol = raw;
		holder->function = source_name(obj, raw ? raw : chain[n - 1].name, bytes);
		holder->cxx_allocator = source_name__is_cxx_allocator(raw ? raw : chain[n - 1].name);
	} else {
		char *name = naming__offset_name(object_file__name(obj), start_known ? start : off);

		holder->function = name;
		if (!name || !keep(obj, &holder->function, bytes))
			holder->function = NULL;
		free(name);
	}
	if (!holder->function || !keep(obj, &holder->symbol, bytes) ||
	    !keep(obj, &holder->file, bytes))
		return 0;
	return n ? n : 1;
}

size_t naming__at(struct object_file *obj, uint64_t offset, struct named_frame *out, size_t max)
{
	struct named_frame frames[NAMING_MAX_CHAIN];
	const struct named_frame *found = frames;
	size_t n, bytes = 0;

	if (!max)
		return 0;
	/* Its strings go to the file's pool, which every thread naming the file shares. */
	symcache__lock(obj->cache);
	n = name_code(obj, offset, frames, NAMING_MAX_CHAIN, &bytes);
	symcache__unlock(obj->cache);
	if (!n)
		return 0;
	/* A chain longer than the caller takes keeps its outermost frames, the holder last. */
	if (n > max) {
		found += n - max;
		n = max;
	}
	memcpy(out, found, n * sizeof(*out));
	return n;
}
