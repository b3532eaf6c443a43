// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "own_heap.h"

#define SPAN (128u << 20)
#define HUGE_PAGE (2u << 20)

void own_heap_in_huge_pages(void)
{
	uintptr_t start, end;
	void *volatile grow; /* not a pair the compiler may leave out */

	/*
	 * Each growth of the heap by brk() is a mapping of its own, which the advice does
	 * not reach: grow it once by the whole span, give none of it back, and let blocks up
	 * to a few MB come from it too rather than from mappings of their own.
	 */
	if (!mallopt(M_TOP_PAD, SPAN) || !mallopt(M_TRIM_THRESHOLD, 2 * SPAN) ||
	    !mallopt(M_MMAP_THRESHOLD, 4 * HUGE_PAGE))
		return;
	start = (uintptr_t)sbrk(0);
	grow = malloc(HUGE_PAGE); /* more than the heap has free: it grows now */
	end = (uintptr_t)sbrk(0);
	free(grow);
	start = (start + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
}
