/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What naming a stack's frame needs to know of its code, answered once per node: by the
 * file (device and inode) and the offset in it, never by a process's addresses. Every
 * rank of a job maps the same libraries, so the ranks after the first that met a stack pay
 * a lookup per frame for it, not its naming (symbols, DWARF, call sites).
 *
 * Answers are kept in the symbol cache (object_file__keep_answer), within its budget, and
 * read by any number of threads at once; a miss is answered under the cache's lock, so
 * that two threads meeting the same frame get the one same answer. Without room in the
 * budget, an answer is made again each time, in the caller's room.
 */
#ifndef HEAPTAP_FRAME_NAMES_H
#define HEAPTAP_FRAME_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "naming.h"
#include "symcache.h"

struct frame_names {
	/*
	 * The offset named: a return address's call instruction (the byte before), or the
	 * return address itself at a signal trampoline's first byte; a code offset itself.
	 */
	uint64_t code;
	uint64_t start;	  /* the start of the function holding code, when start_known */
	bool start_known;
	/* A return address's call instruction (call sites): a direct call, and its target, */
	bool direct;
	uint64_t target;
	/* or the symbol it calls through the PLT or GOT (NULL: none known). */
	const char *callee;
	size_t nr;	  /* names: >= 1 */
	struct named_frame names[NAMING_MAX_CHAIN]; /* innermost first, the holder last */
};

/*
 * The names of the return address at ret_offset of obj: of its call instruction, and
 * where that call goes. The answer lives as long as obj's cache, or in *room (when not
 * kept). NULL only when out of memory.
 */
const struct frame_names *frame_names__return(struct object_file *obj, uint64_t ret_offset,
					      struct frame_names *room);
/* The names of the code at offset of obj (a function's start): code is offset, no call. */
const struct frame_names *frame_names__code(struct object_file *obj, uint64_t offset,
					    struct frame_names *room);

#endif
