/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What a call's stack is charged to: the symbolizer's answer, and the node's (node_stacks.h). */
#ifndef HEAPTAP_RESOLVED_CALL_H
#define HEAPTAP_RESOLVED_CALL_H

#include <stdbool.h>
#include <stdint.h>
#include "heaptap_types.h"
#include "stack_records.h"

struct resolved_call {
	enum ht_func func;    /* the entry point called, aliases told apart by the call site */
	const char *library;  /* path of the naming frame's object, as mapped */
	/*
	 * Its source name (naming.h), or under the entry rule NAMING_PROGRAM ("(program)")
	 * for the program's own direct calls, library then the allocator's
	 */
	const char *function;
	bool complete;	      /* the stack reached a start-up frame */
	uint64_t end_dev, end_inode; /* the file of its outermost frame (0: none), where it ends */
	bool internal;	      /* the allocator's own housekeeping, not a call of the program */
	struct stack_record *record; /* the whole stack, when the symbolizer records them */
};

#endif
