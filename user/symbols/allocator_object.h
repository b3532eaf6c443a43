/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The object that provides a process's malloc family: the program itself when it defines
 * malloc (static builds), a preloaded or linked allocator, or the C library. Plain data,
 * which the symbolizer reads; trace/allocator.c finds it.
 */
#ifndef HEAPTAP_ALLOCATOR_OBJECT_H
#define HEAPTAP_ALLOCATOR_OBJECT_H

#include <stdbool.h>
#include <stdint.h>
#include "heaptap_types.h"

/* The allocators whose size classes heaptap knows (trace/size_classes.c). */
enum size_classes {
	SIZE_CLASSES_NONE,     /* unknown allocator: usable = requested */
	SIZE_CLASSES_JEMALLOC, /* jemalloc 5 (4 KiB pages, 16-byte quantum) */
	SIZE_CLASSES_TCMALLOC, /* gperftools 2, full or minimal (8 KiB pages) */
	SIZE_CLASSES_MIMALLOC, /* mimalloc 2 */
	SIZE_CLASSES_TBB,      /* oneTBB's scalable allocator and its malloc proxy */
};

struct allocator {
	char path[4096];      /* as mapped in the target */
	char open_path[4096]; /* as heaptap reaches it */
	uint64_t dev, inode;
	bool glibc;	      /* block sizes can be read from glibc chunk headers */
	enum size_classes classes; /* otherwise, usable sizes from the allocator's classes */
	/* Its pages can be read for aligned blocks' sizes (HT_COOKIE_MIMALLOC): mimalloc 2.0. */
	bool pages_readable;
	/* File offset of each entry point, 0 when the object lacks it. */
	uint64_t offsets[HT_NR_FUNCS];
	/* Where its probes go (probe_site.h): offsets[f], or a few bytes past it. */
	uint64_t sites[HT_NR_FUNCS];
};

#endif
