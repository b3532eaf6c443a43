// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Built as a distribution builds it (no frame pointers: only its CFI unwinds through it),
 * then copied with crafted sections by corrupt_elf. Every allocator call is made from
 * hostile_alloc, which counts it: the caller attribution must find each one there.
 */
#include <stdlib.h>
#include <string.h>
#include "hostile.h"

__attribute__((noinline)) void *hostile_alloc(struct hostile_counts *c, enum hostile_call call,
					      void *p, size_t n)
{
	void *r = NULL;

	switch (call) {
	case HOSTILE_MALLOC:
		r = malloc(n);
		c->malloc++;
		break;
	case HOSTILE_CALLOC:
		r = calloc(n, 1);
		c->calloc++;
		break;
	case HOSTILE_REALLOC:
		r = realloc(p, n);
		c->realloc++;
		break;
	case HOSTILE_FREE:
		free(p);
		c->free++;
		break;
	}
	return r;
}

uint64_t hostile_work(struct hostile_counts *c, uint64_t seed, int rounds)
{
	uint64_t sum = seed;

	for (int i = 0; i < rounds; i++) {
		size_t n = 16 + (seed * 7919 + (uint64_t)i * 104729) % 1024;
		unsigned char *a = hostile_alloc(c, HOSTILE_MALLOC, NULL, n);
		unsigned char *b = hostile_alloc(c, HOSTILE_CALLOC, NULL, n);

		if (!a || !b)
			abort();
		memset(a, (int)(seed + i), n);
		a = hostile_alloc(c, HOSTILE_REALLOC, a, 2 * n);
		if (!a)
			abort();
		memset(a + n, i, n);
		for (size_t k = 0; k < 2 * n; k += 7)
			sum = sum * 31 + a[k] + (k < n ? b[k] : 0);
		hostile_alloc(c, HOSTILE_FREE, a, 0);
		hostile_alloc(c, HOSTILE_FREE, b, 0);
	}
	return sum;
}
