/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Which frame of a call's stack names its group (DESIGN.md, "Attribution rule").
 * Works on frames already resolved to objects and symbols; knows nothing of /proc or BPF.
 */
#ifndef HEAPTAP_ATTRIBUTION_H
#define HEAPTAP_ATTRIBUTION_H

#include <stdbool.h>
#include <stddef.h>

enum attribution_rule {
	ATTRIBUTE_ENTRY,  /* the first library function the program called (DMATP's rule) */
	ATTRIBUTE_CALLER, /* the innermost function outside the allocator */
};

struct frame {
	const char *object; /* path of the mapped file */
	const char *symbol; /* its function's name (naming.h); NULL when unknown */
	bool in_executable; /* in the program's main executable */
	bool in_allocator;  /* in the object that provides the malloc family */
	/*
	 * An entry point of the allocator outside it: C++'s operator new and delete, whose
	 * calls count as the malloc and free they make.
	 */
	bool entry_point;
};

struct attribution {
	/*
	 * Index of the naming frame; 0: the allocator entry point itself (the entry rule: the
	 * program called the allocator directly).
	 */
	size_t frame;
	bool complete; /* the stack reached a start-up frame, so the entry rule is not a guess */
};

/* Is this one of the runtime start-up frames at the bottom of every stack? */
bool is_startup_symbol(const char *symbol);

/* frames[0] is the allocator entry point, frames[1] its caller, outwards; nr >= 1. */
struct attribution attribute(const struct frame *frames, size_t nr, enum attribution_rule rule);

/* "entry" / "caller"; parse returns -EINVAL for anything else. */
const char *attribution_rule_name(enum attribution_rule rule);
int attribution_rule_parse(const char *name, enum attribution_rule *rule);

#endif
