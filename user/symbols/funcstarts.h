/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Where each function of a file starts, from its call frame information: every function
 * the compiler emitted has an FDE in .eh_frame (or .debug_frame), stripped or not. Names
 * code no symbol covers by its function (lib+0xSTART), so that the return addresses of one
 * unnamed function make one group, not one each.
 */
#ifndef HEAPTAP_FUNCSTARTS_H
#define HEAPTAP_FUNCSTARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct funcstarts;

/* The FDE ranges of the ELF file at path, as file offsets, taking at most max_bytes. NULL
 * with errno (ENOENT: no CFI; EFBIG: over max_bytes). */
struct funcstarts *funcstarts__load_within(const char *path, size_t max_bytes);
void funcstarts__free(struct funcstarts *fs);
size_t funcstarts__bytes(const struct funcstarts *fs);
/* The start of the function (FDE) holding file_offset: true and *start, or false. */
bool funcstarts__start_of(const struct funcstarts *fs, uint64_t file_offset, uint64_t *start);

#endif
