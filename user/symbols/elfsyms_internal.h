/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What elfsyms*.c share of one file's symbols: not for other modules. */
#ifndef HEAPTAP_ELFSYMS_INTERNAL_H
#define HEAPTAP_ELFSYMS_INTERNAL_H

#include <gelf.h>
#include "elfsyms.h"

struct symbol {
	uint64_t offset, size; /* file offsets: what an address minus its mapping gives */
	const char *name;      /* points into elfsyms.names or elfsyms.more_names */
	int preference;	       /* lower is the better name for a shared address */
	/*
	 * A size-0 label in code (ld.so's _dl_start_user, a function written in assembly
	 * without .size): it covers nothing, and names a frame only as a last resort.
	 */
	bool label;
};

struct segment {
	uint64_t vaddr, memsz, offset;
};

struct elfsyms {
	struct symbol *syms; /* by offset, the preferred name first among equals */
	size_t nr;
	bool full;	     /* from .symtab: static functions included */
	struct segment *segs; /* the file's PT_LOADs, to turn addresses into file offsets */
	size_t nr_segs;
	char *names;	     /* a copy of the string table, versions cut off */
	char *more_names;    /* the names of a table merged in (MiniDebugInfo's) */
	char *interp;
	char *build_id;
	char *debuglink;     /* the file name .gnu_debuglink gives its debug file */
	uint32_t debuglink_crc; /* and that file's CRC32 */
	bool has_debugdata;  /* a .gnu_debugdata section (MiniDebugInfo) */
	bool from_debugdata; /* its symbols are merged in */
	size_t malformed;    /* tables or entries that could not be read as they say */
	size_t max_bytes;    /* what the caller's budget allows */
	size_t table_room;   /* of which the tables may take this */
	size_t table_bytes;  /* syms and names */
	size_t other_bytes;  /* the rest: segments, interpreter, build id, debug link */
	bool over_budget;    /* a table was left unread: it would take more than max_bytes */
};

/* Read a symbol table of elf into s (whose segments are set): 0, -EFBIG, -ENOEXEC... */
int elfsyms_load_symbols(struct elfsyms *s, Elf *elf, Elf_Scn *symtab);
void elfsyms_forget_symbols(struct elfsyms *s);
Elf_Scn *elfsyms_find_section(Elf *elf, Elf64_Word type);
Elf_Scn *elfsyms_find_named_section(Elf *elf, const char *name);
/* Its debug link and whether it has MiniDebugInfo, from elf's sections. 0 or -ENOMEM. */
int elfsyms_load_debug_names(struct elfsyms *s, Elf *elf);
/* Sort by offset, the preferred name first among the names of one address. */
void elfsyms_sort(struct elfsyms *s);
/* A symbol's preference among the names of its address (lower is better). */
int elfsyms_preference(const char *name, int bind, bool label);
/* A NOTYPE symbol in code, not an assembler's local name: a label worth knowing. */
bool elfsyms_is_code_label(Elf *elf, const GElf_Sym *sym, const char *name);

#endif
