/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What libelf would take to open a file, judged from its ELF header before it is opened:
 * elf_begin() allocates a structure for every section the header claims, so a crafted
 * file of nothing but section headers (a million in 64 MB) costs hundreds of MB.
 */
#ifndef HEAPTAP_ELF_LIMITS_H
#define HEAPTAP_ELF_LIMITS_H

#include <libelf.h>
#include <stddef.h>

/* What libelf keeps per section it is told of, and per program header (generously). */
#define ELF_SECTION_COST 512
#define ELF_SEGMENT_COST 128

/*
 * 0 when opening the ELF file fd with libelf takes at most max_bytes, -EFBIG when its
 * header claims more sections and program headers than that pays for. Anything that is not
 * an ELF header is 0: libelf refuses it itself.
 */
int elf_headers_within(int fd, size_t max_bytes);

/* An ELF file open for reading: its descriptor and libelf's view of it. */
struct elf_file {
	int fd;
	Elf *elf;
};

/*
 * Open the file at path (O_RDONLY | O_CLOEXEC) and, when elf_headers_within(max_bytes)
 * passes, libelf's view of it (ELF_C_READ_MMAP): the readers of a traced process's files
 * open them here so that none reaches elf_begin() unchecked. 0, or -errno with *out closed:
 * open's own, -EFBIG (its headers cost more), -ENOEXEC (libelf cannot read it, or it is not
 * an ELF file).
 */
int elf_file__open_within(const char *path, size_t max_bytes, struct elf_file *out);
/* End libelf's view and close the file; an elf_file already closed is left as it is. */
void elf_file__close(struct elf_file *f);

#endif
