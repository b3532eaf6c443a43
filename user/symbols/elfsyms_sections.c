// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A file's sections, found by type or by name, and what its own sections say of where its
 * other names are (.gnu_debuglink, .gnu_debugdata): what elfsyms.c reads of the file and
 * elfsyms_debug.c of its debug files.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "elfsyms_internal.h"

/* A debug link is a file name: a few dozen bytes in practice. */
#define MAX_DEBUGLINK 256

Elf_Scn *elfsyms_find_section(Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	}
	return NULL;
}

Elf_Scn *elfsyms_find_named_section(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

int elfsyms_load_debug_names(struct elfsyms *s, Elf *elf)
{
	Elf_Scn *scn = elfsyms_find_named_section(elf, ".gnu_debuglink");
	Elf_Data *data;
	size_t len;

	s->has_debugdata = elfsyms_find_named_section(elf, ".gnu_debugdata") != NULL;
	if (!scn || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
		return 0;
	/* The name, NUL-terminated, then padding and a CRC: a bare file name or nothing. */
	len = strnlen(data->d_buf, data->d_size < MAX_DEBUGLINK ? data->d_size : MAX_DEBUGLINK);
	if (!len || len == data->d_size || len == MAX_DEBUGLINK || memchr(data->d_buf, '/', len))
		return 0;
	if (s->other_bytes > s->max_bytes || len + 1 > s->max_bytes - s->other_bytes)
		return 0; /* a name it can do without */
	/* The CRC32 of the debug file follows, 4-byte aligned. */
	if (((len + 4) & ~(size_t)3) + 4 > data->d_size)
		return 0;
	memcpy(&s->debuglink_crc, (const char *)data->d_buf + ((len + 4) & ~(size_t)3), 4);
	s->debuglink = strndup(data->d_buf, len);
	if (!s->debuglink)
		return -ENOMEM;
	s->other_bytes += len + 1;
	return 0;
}
