/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libmaps: mapping calls made from a library of the program's own (tests/targets/mappings.c
 * records their truth). Each function makes its system calls itself.
 */
#ifndef MAPLIB_H
#define MAPLIB_H

#include <stddef.h>

void *lib_map_anon(size_t len);			 /* mmap, anonymous */
void *lib_map_file(int fd, size_t len);		 /* mmap, shared, of fd from offset 0 */
void lib_unmap(void *addr, size_t len);		 /* munmap */
void *lib_remap(void *addr, size_t old_len, size_t new_len); /* mremap, may move */

#endif
