// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * One entry point in a loop: entry_loop FUNC N calls FUNC N times (freeing what it
 * returns) and prints "ns_per_call X", timed inside, for the per-entry-point table of
 * tools/bench/sites.sh. Under `empty_probes --only FUNC` only FUNC is probed: the free
 * that follows each allocation costs what it costs untraced.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Keep the compiler from pairing calls away. */
#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")

static void calls(const char *func, long n)
{
	void *p = NULL;

	for (long i = 0; i < n; i++) {
		if (!strcmp(func, "malloc")) {
			free(p = malloc(64));
		} else if (!strcmp(func, "calloc")) {
			free(p = calloc(1, 64));
		} else if (!strcmp(func, "realloc")) {
			p = realloc(p, i & 1 ? 64 : 128); /* within its chunk: no copy */
		} else if (!strcmp(func, "reallocarray")) {
			p = reallocarray(p, i & 1 ? 8 : 16, 8);
		} else if (!strcmp(func, "free")) {
			p = malloc(64);
			KEEP(p);
			free(p);
		} else if (!strcmp(func, "memalign")) {
			free(p = memalign(64, 64));
		} else if (!strcmp(func, "aligned_alloc")) {
			free(p = aligned_alloc(64, 64));
		} else if (!strcmp(func, "posix_memalign")) {
			if (!posix_memalign(&p, 64, 64))
				free(p);
		} else if (!strcmp(func, "valloc")) {
			free(p = valloc(64));
		} else if (!strcmp(func, "pvalloc")) {
			free(p = pvalloc(64));
		} else {
			fprintf(stderr, "entry_loop: unknown entry point '%s'\n", func);
			exit(2);
		}
		KEEP(p);
	}
	if (!strcmp(func, "realloc") || !strcmp(func, "reallocarray"))
		free(p);
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	double start;

	if (n <= 0) {
		fprintf(stderr, "usage: entry_loop FUNC ITERATIONS\n");
		return 2;
	}
	calls(argv[1], n / 10 + 1); /* warm up: caches, page faults, probes installed */
	start = now_ns();
	calls(argv[1], n);
	printf("ns_per_call %.1f\n", (now_ns() - start) / n);
	return 0;
}
