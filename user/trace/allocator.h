/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The object that provides a process's malloc family: the program itself when it defines
 * malloc (static builds), a preloaded or linked allocator, or the C library.
 */
#ifndef HEAPTAP_ALLOCATOR_H
#define HEAPTAP_ALLOCATOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "heaptap_types.h"
#include "procmaps.h"
#include "size_classes.h"
#include "symcache.h"

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

/*
 * Find the allocator among the file mappings of pid. Returns 0, -ENOENT when no mapped
 * object defines malloc (yet: the loader may not have mapped libc), or -errno.
 */
int allocator__find(pid_t pid, const struct procmaps *maps, struct symcache *cache,
		    struct allocator *out);

/* The allocator in obj (mapped at path), e.g. a static program about to be executed. */
void allocator__from_object(const char *path, const struct object_file *obj,
			    struct allocator *out);

/*
 * Does func share its address with an entry point earlier in enum order (glibc: memalign
 * and aligned_alloc)? Probes are placed once per address, on the first of its names.
 */
bool allocator__is_alias(const struct allocator *a, enum ht_func func);

/*
 * Usable bytes of a block func returned for requested bytes (calloc: the product) aligned
 * to align (memalign, aligned_alloc, posix_memalign; ignored otherwise), under an
 * allocator whose blocks heaptap cannot read: from its size classes, or requested where
 * they cannot tell. allocator__usable_known says which.
 */
uint64_t allocator__usable(const struct allocator *a, enum ht_func func, uint64_t requested,
			   uint64_t align);
bool allocator__usable_known(const struct allocator *a, enum ht_func func, uint64_t requested,
			     uint64_t align);
/* ... of the block realloc returned: in_place when it is the block it was given. */
uint64_t allocator__realloc_usable(const struct allocator *a, uint64_t requested,
				   uint64_t old_usable, bool in_place);

#endif
