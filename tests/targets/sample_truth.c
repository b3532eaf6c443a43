// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Sites that hold known bytes, for --sample-bytes' estimates (test_sampling.c): each
 * allocation site is a function of its own, and the program counts what each holds
 * (malloc_usable_size) and writes it to the truth file. Every block is still held when
 * it exits, so each site's outstanding bytes at the end are its truth; churn_site's
 * blocks are freed at once (a site of short-lived blocks: nothing outstanding).
 *
 *   small_site   160,000 blocks of 64..1,000 bytes (~80 MiB): ~1/100 of them sampled at 64K
 *   medium_site  10,000 blocks of 4..12 KiB (~80 MiB)
 *   large_site   16 blocks of 1..3 MiB (~32 MiB): p = 1 - exp(-16) at least, all sampled
 *                (blocks of a few R, sampled with p near 1 but below it, would make a
 *                site's error far from normal: one block missed is 4 standard errors)
 *   calloc_site, realloc_site: the other calls that return blocks (~60 MiB each)
 *   grow_site    realloc(NULL, n), which glibc's realloc passes on to malloc: drawn once
 *                (~60 MiB)
 *   tiny_site    a few blocks (under 1% of the peak: not checked)
 *
 * Every checked site holds enough for ~1,000 samples at 64K: a standard error of ~3% a
 * run, ~0.7% for the mean of 20 (3% is 4 of them).
 *
 * sample_truth --truth FILE
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum site { SMALL, MEDIUM, LARGE, CALLOC, REALLOC, GROW, TINY, NR_SITES };

static const char *const site_names[NR_SITES] = {
	"small_site", "medium_site", "large_site", "calloc_site", "realloc_site", "grow_site",
	"tiny_site",
};

static uint64_t held[NR_SITES];

/* A reproducible spread of sizes, without a libc random (it may allocate). */
static uint64_t next_size(uint64_t *state, uint64_t lo, uint64_t hi)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return lo + (*state >> 33) % (hi - lo);
}

static void *hold(enum site s, void *p)
{
	if (!p)
		abort();
	held[s] += malloc_usable_size(p);
	return p;
}

__attribute__((noinline)) static void *small_site(size_t n)
{
	return hold(SMALL, malloc(n));
}

__attribute__((noinline)) static void *medium_site(size_t n)
{
	return hold(MEDIUM, malloc(n));
}

__attribute__((noinline)) static void *large_site(size_t n)
{
	return hold(LARGE, malloc(n));
}

__attribute__((noinline)) static void *calloc_site(size_t n)
{
	return hold(CALLOC, calloc(n, 1));
}

__attribute__((noinline)) static void *realloc_site(size_t n)
{
	/* The first block is released by the realloc: only the second is held. */
	void *p = realloc(malloc(n / 2), n);

	return hold(REALLOC, p);
}

__attribute__((noinline)) static void *grow_site(size_t n)
{
	return hold(GROW, realloc(NULL, n));
}

__attribute__((noinline)) static void *tiny_site(size_t n)
{
	return hold(TINY, malloc(n));
}

__attribute__((noinline)) static void churn_site(size_t n)
{
	free(malloc(n));
}

int main(int argc, char **argv)
{
	uint64_t state = 1;
	FILE *f;

	if (argc != 3 || strcmp(argv[1], "--truth")) {
		fprintf(stderr, "usage: sample_truth --truth FILE\n");
		return 2;
	}
	for (int i = 0; i < 160000; i++) {
		small_site(next_size(&state, 64, 1000));
		churn_site(next_size(&state, 16, 4096));
	}
	for (int i = 0; i < 10000; i++)
		medium_site(next_size(&state, 4096, 12288));
	for (int i = 0; i < 16; i++)
		large_site(next_size(&state, 1 << 20, 3 << 20));
	for (int i = 0; i < 30000; i++)
		calloc_site(next_size(&state, 1000, 3000));
	for (int i = 0; i < 30000; i++)
		realloc_site(next_size(&state, 1000, 3000));
	for (int i = 0; i < 30000; i++)
		grow_site(next_size(&state, 1000, 3000));
	for (int i = 0; i < 10; i++)
		tiny_site(100);
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "{\"sites\": {");
	for (int s = 0; s < NR_SITES; s++)
		fprintf(f, "%s\"%s\": %llu", s ? ", " : "", site_names[s],
			(unsigned long long)held[s]);
	fprintf(f, "}}\n");
	return fclose(f) ? 1 : 0;
}
