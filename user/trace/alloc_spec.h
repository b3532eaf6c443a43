/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Allocator APIs beyond the malloc family (--allocator NAME|FILE): a built-in one (tbb) or
 * a spec file, one entry point a line, '#' comments:
 *
 *	# FUNCTION	KIND		ARGUMENTS (1-based)
 *	pool_alloc	malloc		size=arg2
 *	pool_resize	realloc		ptr=arg2 size=arg3
 *	pool_release	free		ptr=arg2
 *	gbrk		brk		increment=arg1
 *
 * KIND: malloc (size=), calloc (count= size=), realloc (ptr= size=), free (ptr=),
 * memalign (align= size=), posix_memalign (out= align= size=), brk (increment=: a signed
 * change of the allocator's balance; it returns the old break).
 */
#ifndef HEAPTAP_ALLOC_SPEC_H
#define HEAPTAP_ALLOC_SPEC_H

#include <stddef.h>

#define ALLOC_SPEC_MAX_ARGS 6	  /* the x86-64 registers that pass arguments */
#define ALLOC_SPEC_MAX_ENTRIES 64 /* per allocator */

enum spec_kind {
	SPEC_MALLOC,
	SPEC_CALLOC,
	SPEC_REALLOC,
	SPEC_FREE,
	SPEC_MEMALIGN,
	SPEC_POSIX_MEMALIGN,
	SPEC_BRK,
	SPEC_NR_KINDS,
};

/* What an argument of an entry point means. */
enum spec_role {
	ROLE_SIZE,
	ROLE_PTR,
	ROLE_COUNT,
	ROLE_ALIGN,
	ROLE_OUT,
	ROLE_INCREMENT,
	ROLE_NR,
};

struct spec_entry {
	char function[128];
	enum spec_kind kind;
	unsigned char arg[ROLE_NR]; /* 1-based argument of each role; 0: the kind has none */
	unsigned line;		    /* in its file (0: built in) */
};

struct alloc_spec {
	char name[64];	  /* tbb, or the file's name without its extension */
	char source[256]; /* where it came from, for messages: the file, or "tbb" */
	struct spec_entry entries[ALLOC_SPEC_MAX_ENTRIES];
	size_t nr;
};

/*
 * NAME (a built-in) or FILE into *out. Returns 0, or -EINVAL after writing one line into
 * err ("FILE:LINE: what is wrong"), or -errno when the file cannot be read.
 */
int alloc_spec__load(const char *name_or_path, struct alloc_spec *out, char *err, size_t err_len);
/* The spec text of a file named source. */
int alloc_spec__parse(const char *source, const char *text, struct alloc_spec *out, char *err,
		      size_t err_len);

/* "malloc", "calloc", ... */
const char *alloc_spec__kind_name(enum spec_kind kind);

/* The argument (1-based) of role, 0 when the entry has none. */
static inline unsigned alloc_spec__arg(const struct spec_entry *e, enum spec_role role)
{
	return e->arg[role];
}

#endif
