/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The usable bytes an allocator other than glibc's gives a request, computed from outside:
 * what its own malloc_usable_size would return, from its size classes. Their blocks carry
 * no header heaptap can read, so the size must be known from the request alone.
 */
#ifndef HEAPTAP_SIZE_CLASSES_H
#define HEAPTAP_SIZE_CLASSES_H

#include <stdbool.h>
#include <stdint.h>
#include "allocator_object.h"

/* The classes of the allocator in the file named path (by its file name); NONE otherwise. */
enum size_classes size_classes__of(const char *path);

/*
 * Can BPF read the usable size of an aligned block of the allocator in the file named path
 * from its pages (include/heaptap.h: HT_MI_*)? mimalloc 2.0, whose layout is known.
 */
bool size_classes__pages_readable(const char *path);

/* "jemalloc", "tcmalloc", ...; NULL for NONE. */
const char *size_classes__name(enum size_classes classes);

/*
 * Usable bytes of a block of size bytes aligned to align (0: the allocator's natural
 * alignment, as malloc and calloc), into *usable. Returns false, and *usable = size, where
 * the allocator's answer depends on more than the request (e.g. the block's address).
 */
bool size_classes__usable(enum size_classes classes, uint64_t size, uint64_t align,
			  uint64_t *usable);

/*
 * Usable bytes after realloc to size of a block that had old_usable: in_place when realloc
 * returned the block it was given. Returns false as size_classes__usable does.
 */
bool size_classes__realloc_usable(enum size_classes classes, uint64_t size, uint64_t old_usable,
				  bool in_place, uint64_t *usable);

#endif
