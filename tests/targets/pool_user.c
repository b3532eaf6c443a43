// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Calls libcpool's API (cpool.spec) from two threads, one after the other, and records what
 * it asked for: pool_user --truth FILE, or --truth-dir DIR (DIR/pool-RANK.json, RANK the
 * launcher's).
 */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include "api_truth.h"
#include "cpool.h"
#include "launcher_rank.h"

static struct cpool pool;
static void *blocks[17];
static size_t sizes[17];

static void *alloc_block(int i, size_t n)
{
	blocks[i] = pool_alloc(&pool, n);
	sizes[i] = n;
	api_note(K_MALLOC, blocks[i] ? (long long)n : 0, blocks[i] ? (long long)n : 0);
	return blocks[i];
}

static void release_block(int i)
{
	pool_release(&pool, blocks[i]);
	api_note(K_FREE, blocks[i] ? -(long long)sizes[i] : 0, 0);
	blocks[i] = NULL;
}

static void resize_block(int i, size_t n)
{
	void *p = pool_resize(&pool, blocks[i], n);

	if (p || !n) {
		api_note(K_REALLOC, (long long)(p ? n : 0) - (long long)sizes[i],
			 p ? (long long)n : 0);
		blocks[i] = p;
		sizes[i] = p ? n : 0;
	} else {
		api_note(K_REALLOC, 0, 0);
	}
}

static void heap_move(intptr_t increment)
{
	bool moved = gbrk(increment) != (void *)-1;

	api_note(K_BRK, moved ? increment : 0, moved && increment > 0 ? increment : 0);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 10; i < 15; i++)
		alloc_block(i, 40 + i);
	release_block(0); /* allocated by main: a free charged to this thread */
	release_block(11);
	heap_move(-4096);
	return NULL;
}

int main(int argc, char **argv)
{
	void *aligned = NULL;
	char truth[4096];
	pthread_t t;
	int err;

	if (argc != 3 || (strcmp(argv[1], "--truth") && strcmp(argv[1], "--truth-dir")))
		return 2;
	if (!strcmp(argv[1], "--truth"))
		snprintf(truth, sizeof(truth), "%s", argv[2]);
	else
		rank_truth_path(truth, sizeof(truth), argv[2], "pool");
	for (int i = 0; i < 10; i++)
		alloc_block(i, 100 + i * 10);
	for (int i = 1; i < 6; i++)
		resize_block(i, sizes[i] * 2);
	resize_block(6, 0); /* releases it through pool_release: one call */
	release_block(7);
	release_block(8);
	/* Large enough for glibc to map it: an mmap made inside malloc inside pool_alloc. */
	alloc_block(16, 1 << 20);
	release_block(16);
	err = pool_memalign(&aligned, 64, 1000);
	api_note(K_POSIX_MEMALIGN, err ? 0 : 1000, err ? 0 : 1000);
	err = pool_memalign(&aligned, 3, 64); /* EINVAL: not a power of two */
	api_note(K_POSIX_MEMALIGN, err ? 0 : 64, err ? 0 : 64);
	heap_move(4096);
	heap_move(8192);
	heap_move(-2048);
	heap_move(1 << 30);  /* beyond the region: fails */
	heap_move(-100000); /* below its start: fails */
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	return api_write_truth(truth) ? 1 : 0;
}
