/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A file's DWARF (its own, or its separate debug file's), read with libdw for one thing:
 * which functions an address lies in, inlined ones included, and at which source lines.
 * Sections are mapped, not copied (compressed ones are inflated once, when opened).
 */
#ifndef HEAPTAP_INLINES_H
#define HEAPTAP_INLINES_H

#include <stddef.h>
#include <stdint.h>

struct inlines;

/* One function of an address's chain, innermost first. */
struct inline_frame {
	const char *name; /* linkage (mangled) name when DWARF has one, else the plain name */
	const char *file; /* the source position in this function, or NULL */
	int line;	  /* 0 when unknown */
};

/*
 * The DWARF of the ELF file at path, when it has .debug_info and its debug sections,
 * inflated, with what libelf and libdw keep besides, take at most max_bytes (else NULL with
 * errno EFBIG; ENOENT: no DWARF).
 */
struct inlines *inlines__open_within(const char *path, size_t max_bytes);
void inlines__free(struct inlines *in);
/* What it was charged: the debug sections' inflated sizes, libelf's and libdw's own. */
size_t inlines__bytes(const struct inlines *in);
/*
 * The functions at vaddr, innermost first: the inlined ones, then the function that holds
 * them all (out[n - 1]); for each the line in it (the innermost: vaddr's own line; an outer
 * one: the line of its call to the next inner one). Names and files stay valid as long as
 * in. Returns how many (at most max), 0 when DWARF does not cover vaddr.
 */
size_t inlines__at(struct inlines *in, uint64_t vaddr, struct inline_frame *out, size_t max);

#endif
