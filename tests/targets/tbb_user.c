// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Calls oneTBB's scalable allocator directly (heaptap --allocator tbb) from two threads,
 * one after the other, and records what it asked for: tbb_user --truth FILE.
 */
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include "api_truth.h"

/* tbb/scalable_allocator.h's C API (libtbbmalloc.so.2). */
void *scalable_malloc(size_t size);
void scalable_free(void *ptr);
void *scalable_calloc(size_t nobj, size_t size);
void *scalable_realloc(void *ptr, size_t size);
int scalable_posix_memalign(void **memptr, size_t alignment, size_t size);
void *scalable_aligned_malloc(size_t size, size_t alignment);
void *scalable_aligned_realloc(void *ptr, size_t size, size_t alignment);
void scalable_aligned_free(void *ptr);
size_t scalable_msize(void *ptr);

static void *blocks[8];
static long long sizes[8];

static void got(int i, void *p, enum api_kind kind, long long n)
{
	blocks[i] = p;
	sizes[i] = p ? n : 0;
	api_note(kind, sizes[i], sizes[i]);
}

static void released(int i, enum api_kind kind)
{
	api_note(kind, -sizes[i], 0);
	blocks[i] = NULL;
	sizes[i] = 0;
}

static void *worker(void *arg)
{
	(void)arg;
	got(5, scalable_malloc(777), K_MALLOC, 777);
	scalable_free(blocks[0]);
	released(0, K_FREE);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	void *p;
	int err;

	if (argc != 3 || strcmp(argv[1], "--truth"))
		return 2;
	got(0, scalable_malloc(100), K_MALLOC, 100);
	got(1, scalable_calloc(10, 30), K_CALLOC, 300);
	p = scalable_realloc(blocks[1], 5000);
	api_note(K_REALLOC, p ? 5000 - sizes[1] : 0, p ? 5000 : 0);
	blocks[1] = p;
	sizes[1] = 5000;
	got(2, scalable_aligned_malloc(200, 128), K_MEMALIGN, 200);
	p = scalable_aligned_realloc(blocks[2], 4000, 128);
	api_note(K_REALLOC, p ? 4000 - sizes[2] : 0, p ? 4000 : 0);
	blocks[2] = p;
	sizes[2] = 4000;
	err = scalable_posix_memalign(&p, 256, 333);
	got(3, err ? NULL : p, K_POSIX_MEMALIGN, 333);
	got(4, scalable_malloc(1 << 20), K_MALLOC, 1 << 20);
	if (scalable_msize(blocks[4]) < (1 << 20)) /* not an allocation: moves nothing */
		return 1;
	scalable_free(blocks[4]);
	released(4, K_FREE);
	scalable_aligned_free(blocks[2]);
	released(2, K_FREE);
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	return api_write_truth(argv[2]) ? 1 : 0;
}
