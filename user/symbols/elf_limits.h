/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What libelf would take to open a file, judged from its ELF header before it is opened:
 * elf_begin() allocates a structure for every section the header claims, so a crafted
 * file of nothing but section headers (a million in 64 MB) costs hundreds of MB.
 */
#ifndef HEAPTAP_ELF_LIMITS_H
#define HEAPTAP_ELF_LIMITS_H

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

#endif
