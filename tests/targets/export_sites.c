// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Three allocation sites with known figures, for the exports' tests (--pprof, --folded):
 * leak_site keeps every block it allocates, churn_site frees each at once, and a thread's
 * hold_site keeps its blocks too. At the end the program prints its own truth, one line:
 *   truth leak_site BLOCKS BYTES churn_site CALLS BYTES hold_site BLOCKS BYTES
 * bytes as malloc_usable_size counts them (usable bytes, as heaptap does). With a path
 * argument it first waits until that file exists (for heaptap attach to be in place).
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define LEAKS 37
#define CHURNS 500
#define HOLDS 11

struct site_truth {
	long blocks;
	size_t bytes;
};

static void *kept[LEAKS + HOLDS];

/* Sizes that differ, so that a site's bytes are no simple multiple. */
__attribute__((noinline)) static void leak_site(struct site_truth *t)
{
	for (int i = 0; i < LEAKS; i++) {
		kept[i] = malloc(100 + 24 * i);
		if (!kept[i])
			exit(1);
		t->blocks++;
		t->bytes += malloc_usable_size(kept[i]);
	}
}

__attribute__((noinline)) static void churn_site(struct site_truth *t)
{
	for (int i = 0; i < CHURNS; i++) {
		void *p = malloc(64 + i % 7);

		if (!p)
			exit(1);
		t->blocks++;
		t->bytes += malloc_usable_size(p);
		free(p);
	}
}

__attribute__((noinline)) static void *hold_site(void *arg)
{
	struct site_truth *t = arg;

	for (int i = 0; i < HOLDS; i++) {
		kept[LEAKS + i] = calloc(1, 1000 + 8 * i);
		if (!kept[LEAKS + i])
			exit(1);
		t->blocks++;
		t->bytes += malloc_usable_size(kept[LEAKS + i]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct site_truth leak = { 0 }, churn = { 0 }, hold = { 0 };
	pthread_t thread;

	while (argc > 1 && access(argv[1], F_OK))
		usleep(10000);

	leak_site(&leak);
	churn_site(&churn);
	if (pthread_create(&thread, NULL, hold_site, &hold) || pthread_join(thread, NULL))
		return 1;
	printf("truth leak_site %ld %zu churn_site %ld %zu hold_site %ld %zu\n", leak.blocks,
	       leak.bytes, churn.blocks, churn.bytes, hold.blocks, hold.bytes);
	return fflush(stdout) ? 1 : 0;
}
