/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The library the hostile program loads in its crafted copies, and what it counts. */
#ifndef HEAPTAP_TARGETS_HOSTILE_H
#define HEAPTAP_TARGETS_HOSTILE_H

#include <stddef.h>
#include <stdint.h>

/* Every call hostile_alloc made, by entry point: the ground truth. */
struct hostile_counts {
	long malloc, calloc, realloc, free;
};

enum hostile_call { HOSTILE_MALLOC, HOSTILE_CALLOC, HOSTILE_REALLOC, HOSTILE_FREE };

/* The one function of the library that calls the allocator. */
void *hostile_alloc(struct hostile_counts *c, enum hostile_call call, void *p, size_t n);
/* rounds of allocations filled from seed; a checksum of what they held. */
uint64_t hostile_work(struct hostile_counts *c, uint64_t seed, int rounds);

#endif
