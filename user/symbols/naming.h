/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * How heaptap names code, in one place: the text and JSON reports, top, --stacks and the
 * call tree all show what this module answers, so they cannot disagree. The rules:
 *
 *  1. A return address is named by the function holding its call instruction (the address
 *     before it); the symbolizer passes that address.
 *  2. The symbol covering the address, from the file's .symtab, else its separate debug
 *     file's (build id, .gnu_debuglink), its MiniDebugInfo's (.gnu_debugdata) merged with
 *     its .dynsym. Among the names of one address: the public name before its P-prefixed
 *     profiling alias (MPI_Send, not PMPI_Send), then the fewest leading underscores, then
 *     global, weak, local (elfsyms.c).
 *  3. No symbol covers it: the nearest size-0 label before it (ld.so's _dl_start_user),
 *     unless a function (.eh_frame FDE) starts in between; then that function's start,
 *     "lib+0xSTART" (one name for all of one function's addresses); then "lib+0xOFFSET".
 *  4. The source name: GCC's clone and split suffixes folded, C++ and Rust demangled
 *     (source_name.h): mk_const.constprop.0 is mk_const, _ZN2ns4Pool4grabEm is
 *     ns::Pool::grab(unsigned long).
 *  5. Where DWARF covers the address (the file's own, or its debug file's), the functions
 *     inlined there come first, innermost first, each with its file:line; the last frame is
 *     the function that holds the code, named as above.
 *  6. Frame 0 of a stack, the probed entry point, is named by the entry point the program
 *     called (free, not its alias cfree): the symbolizer's business, from the call site.
 *
 * This module only applies the rules: it caches nothing. frame_names.h keeps its answers,
 * once per node, by file and offset.
 */
#ifndef HEAPTAP_NAMING_H
#define HEAPTAP_NAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "symcache.h"

/* Under the entry rule, the group of a program's direct calls, one per allocator library. */
#define NAMING_PROGRAM "(program)"

/* At most this many functions inlined into one another at one address are told apart. */
#define NAMING_MAX_CHAIN 16

struct named_frame {
	const char *function; /* the source name */
	/*
	 * The raw symbol of the function holding the code (the last frame of a chain); NULL
	 * for inlined frames and for code no symbol names.
	 */
	const char *symbol;
	const char *file;     /* source file, NULL when unknown */
	int line;	      /* 0 when unknown */
	bool inlined;	      /* inlined into the next frame, at the same address */
	bool cxx_allocator;   /* C++'s operator new/delete: an entry point of the allocator */
};

/*
 * The names of the code at file offset `offset` of obj, innermost first, at most max
 * (>= 1): inlined functions, then the one holding the code. The strings live as long as
 * obj (kept in obj->names, under the cache's lock). 0 only when out of memory.
 */
size_t naming__at(struct object_file *obj, uint64_t offset, struct named_frame *out, size_t max);
/* The start (file offset) of the function holding offset, from rules 2 and 3, if known. */
bool naming__function_start(struct object_file *obj, uint64_t offset, uint64_t *start);
/* "lib+0x1a2b": code of object (a path) at offset, named by nothing else. NULL: no memory. */
char *naming__offset_name(const char *object, uint64_t offset);

#endif
