// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Which name an address of a file gets among its symbols: their order (elfsyms_internal.h). */
#include <stdlib.h>
#include <string.h>
#include "elfsyms_internal.h"
#include "source_name.h"

/* Labels name a frame only where nothing else does: after every function at their address. */
#define LABEL_PREFERENCE 1000
/* A profiling alias (PMPI_Send) after the public name at its address (MPI_Send). */
#define PROFILING_ALIAS_PREFERENCE 100

/* Between aliases: fewest leading underscores, then GLOBAL, WEAK, LOCAL; labels last. */
int elfsyms_preference(const char *name, int bind, bool label)
{
	int underscores = strspn(name, "_");
	int binding = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;

	return underscores * 4 + binding + (label ? LABEL_PREFERENCE : 0);
}

static int by_offset(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->preference != y->preference)
		return x->preference - y->preference;
	return strcmp(x->name, y->name);
}

/*
 * One address, one name: Open MPI's MPI_Send is a weak alias of the global PMPI_Send, and
 * the user called MPI_Send. Among the names of an address, a P-prefixed copy of another
 * gives way to it.
 */
static void prefer_public_names(struct elfsyms *s)
{
	bool moved = false;

	for (size_t first = 0, end; first < s->nr; first = end) {
		for (end = first + 1; end < s->nr && s->syms[end].offset == s->syms[first].offset;)
			end++;
		for (size_t i = first; i < end && end - first <= 64; i++) {
			for (size_t j = first; j < end; j++) {
				if (j != i && !s->syms[i].label &&
				    source_name__is_profiling_alias(s->syms[i].name,
								    s->syms[j].name)) {
					s->syms[i].preference += PROFILING_ALIAS_PREFERENCE;
					moved = true;
					break;
				}
			}
		}
	}
	if (moved)
		qsort(s->syms, s->nr, sizeof(*s->syms), by_offset);
}

void elfsyms_sort(struct elfsyms *s)
{
	if (s->nr)
		qsort(s->syms, s->nr, sizeof(*s->syms), by_offset);
	prefer_public_names(s);
}

/* A NOTYPE symbol in code, not an assembler's local name: a label worth knowing. */
bool elfsyms_is_code_label(Elf *elf, const GElf_Sym *sym, const char *name)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE || !name[0] || name[0] == '.' ||
	    name[0] == '$' || sym->st_shndx >= SHN_LORESERVE)
		return false;
	scn = elf_getscn(elf, sym->st_shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}
