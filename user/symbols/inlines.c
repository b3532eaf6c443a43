// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "elf_limits.h"
#include "inlines.h"

/*
 * What libdw keeps besides the sections, measured: its Dwarf, its memory pool, the CU and
 * abbreviation tables a lookup builds (16 KiB for a small library, 27 KiB with C++).
 */
#define LIBDW_OVERHEAD (32 << 10)

struct inlines {
	struct elf_file file; /* libelf's view of the file is kept as long as libdw's */
	Dwarf *dwarf;
	size_t bytes;
};

/*
 * What libdw takes of the file: every debug section it knows, inflated when compressed
 * (it inflates them all when it opens the file). 0 when there is no .debug_info.
 */
static int debug_bytes(Elf *elf, size_t *bytes)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	bool info = false;

	*bytes = 0;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		const char *name;
		uint64_t size;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    (strncmp(name, ".debug_", 7) && strncmp(name, ".zdebug_", 8)))
			continue;
		if (sh.sh_type == SHT_NOBITS)
			continue;
		info |= !strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info");
		size = sh.sh_size;
		if ((sh.sh_flags & SHF_COMPRESSED) && gelf_getchdr(scn, &ch))
			size = ch.ch_size;
		if (!strncmp(name, ".zdebug_", 8))
			size *= 8; /* GNU-style: the real size is in the data; take a bound */
		if (__builtin_add_overflow(*bytes, size, bytes))
			return -EFBIG;
	}
	return info ? 0 : -ENOENT;
}

struct inlines *inlines__open_within(const char *path, size_t max_bytes)
{
	struct inlines *in = calloc(1, sizeof(*in));
	size_t nr_sections = 0, nr_phdrs = 0;
	int err;

	if (!in)
		return NULL;
	err = elf_file__open_within(path, max_bytes, &in->file);
	if (!err)
		err = debug_bytes(in->file.elf, &in->bytes);
	if (!err && (elf_getshdrnum(in->file.elf, &nr_sections) ||
		     elf_getphdrnum(in->file.elf, &nr_phdrs)))
		err = -ENOEXEC;
	if (!err)
		in->bytes += LIBDW_OVERHEAD + nr_sections * ELF_SECTION_COST +
			     nr_phdrs * ELF_SEGMENT_COST;
	if (!err && in->bytes > max_bytes)
		err = -EFBIG;
	if (!err && !(in->dwarf = dwarf_begin_elf(in->file.elf, DWARF_C_READ, NULL)))
		err = -ENOENT;
	if (!err)
		return in;
	inlines__free(in);
	errno = -err;
	return NULL;
}

void inlines__free(struct inlines *in)
{
	if (!in)
		return;
	if (in->dwarf)
		dwarf_end(in->dwarf);
	elf_file__close(&in->file);
	free(in);
}

size_t inlines__bytes(const struct inlines *in)
{
	return sizeof(*in) + in->bytes;
}

/* The linkage name (C++, mangled) where there is one, else the source name. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *name;

	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)) &&
	    (name = dwarf_formstring(&a)))
		return name;
	if (dwarf_attr_integrate(die, DW_AT_name, &a) && (name = dwarf_formstring(&a)))
		return name;
	return NULL;
}

/* Where an inlined subroutine was called from, in the function it was inlined into. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inlined, struct inline_frame *outer)
{
	Dwarf_Attribute a;
	Dwarf_Word file, line;
	Dwarf_Files *files;
	size_t nr;

	if (dwarf_attr(inlined, DW_AT_call_line, &a) && !dwarf_formudata(&a, &line))
		outer->line = line;
	if (dwarf_attr(inlined, DW_AT_call_file, &a) && !dwarf_formudata(&a, &file) &&
	    !dwarf_getsrcfiles(cu, &files, &nr) && file < nr)
		outer->file = dwarf_filesrc(files, file, NULL, NULL);
}

size_t inlines__at(struct inlines *in, uint64_t vaddr, struct inline_frame *out, size_t max)
{
	Dwarf_Die cu, *scopes = NULL;
	struct inline_frame at = {}; /* the next frame's position, from its inner one */
	Dwarf_Line *line;
	size_t n = 0;
	int nr_scopes;

	if (!max || !dwarf_addrdie(in->dwarf, vaddr, &cu))
		return 0;
	/*
	 * dwarf_getscopes goes on, past an inlined function, to where its abstract definition
	 * lies: the functions it was inlined into are its DIE's parents in the tree instead.
	 */
	nr_scopes = dwarf_getscopes(&cu, vaddr, &scopes);
	for (int i = 0; i < nr_scopes; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
			Dwarf_Die innermost = scopes[i];

			free(scopes);
			scopes = NULL;
			nr_scopes = dwarf_getscopes_die(&innermost, &scopes);
			break;
		}
	}
	for (int i = 0; i < nr_scopes && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[n] = at;
		out[n].name = die_name(&scopes[i]);
		if (n == 0 && (line = dwarf_getsrc_die(&cu, vaddr))) {
			int lineno = 0;

			out[0].file = dwarf_linesrc(line, NULL, NULL);
			if (!dwarf_lineno(line, &lineno))
				out[0].line = lineno;
		}
		at = (struct inline_frame){};
		if (tag == DW_TAG_inlined_subroutine)
			call_site(&cu, &scopes[i], &at);
		if (!out[n].name) {
			n = 0; /* a chain with a nameless link: the symbol table names it */
			break;
		}
		n++;
		if (tag == DW_TAG_subprogram)
			break;
	}
	free(scopes);
	return n;
}
