// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A small allocator API for the --allocator tests (tests/targets/cpool.spec): a pool on
 * top of malloc, whose calls show both as its own and as the mallocs it makes, and a
 * brk-like global heap, gbrk(n), that grows and shrinks a region it maps at its first call
 * (a mapping made inside a probed call, for the OS view).
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "cpool.h"

#define KEEP __attribute__((noinline, used, visibility("default")))

KEEP void *pool_alloc(struct cpool *pool, size_t n)
{
	pool->blocks++;
	return malloc(n);
}

KEEP void pool_release(struct cpool *pool, void *p)
{
	if (p)
		pool->blocks--;
	free(p);
}

/* To size 0 it releases the block through its own API: an inner call, not a second one. */
KEEP void *pool_resize(struct cpool *pool, void *p, size_t n)
{
	if (!n) {
		pool_release(pool, p);
		return NULL;
	}
	return realloc(p, n);
}

KEEP int pool_memalign(void **out, size_t align, size_t n)
{
	return posix_memalign(out, align, n);
}

#define GLOBAL_HEAP_SIZE (1 << 20)

static char *global_heap;
static size_t global_break;

KEEP void *gbrk(intptr_t increment)
{
	char *old;

	if (!global_heap) {
		global_heap = mmap(NULL, GLOBAL_HEAP_SIZE, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (global_heap == MAP_FAILED) {
			global_heap = NULL;
			return (void *)-1;
		}
	}
	old = global_heap + global_break;
	if ((increment < 0 && (size_t)-increment > global_break) ||
	    (increment > 0 && (size_t)increment > GLOBAL_HEAP_SIZE - global_break))
		return (void *)-1;
	global_break += increment;
	return old;
}
