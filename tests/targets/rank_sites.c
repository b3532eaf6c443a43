// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A rank of a cluster job with two allocation sites of known figures, different per rank
 * (its rank from the launcher's environment: OMPI_COMM_WORLD_RANK, SLURM_PROCID...):
 * leak_site keeps its blocks to the end; burst_site holds larger blocks for a moment (the
 * process's peak), then frees them. It writes its truth to DIR/owner-<rank>.json:
 *   {"rank": R, "leak_site": {"blocks", "bytes"}, "burst_site": {"blocks", "bytes"}}
 * bytes as malloc_usable_size counts them. At the peak both sites hold all their blocks;
 * at the end leak_site holds its own and burst_site nothing.
 * Usage: rank_sites --truth-dir DIR [--go FILE] [--hold FILE [--drip]] [--big-rank R]
 *   --go: wait until FILE exists before the sites (for heaptap to be in place)
 *   --hold: then keep running (leak_site's blocks held) until FILE exists
 *   --drip: meanwhile drip_site leaks a block every DRIP_MS, steadily: its truth has
 *           "drip_site": {"bytes_per_second"}
 *   --big-rank: rank R's burst blocks are 20 times larger (a job's outlier)
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_BLOCKS 64
#define DRIP_MS 50
#define DRIP_SIZE 1000

struct site_truth {
	long blocks;
	size_t bytes;
};

static void *kept[MAX_BLOCKS];

static int rank_from_environment(void)
{
	const char *names[] = { "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMIX_RANK", "PMI_RANK" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *value = getenv(names[i]);

		if (value && *value)
			return atoi(value);
	}
	return -1;
}

__attribute__((noinline)) static void leak_site(int n, struct site_truth *t)
{
	for (int i = 0; i < n; i++) {
		kept[i] = malloc(200 + 40 * i);
		if (!kept[i])
			exit(1);
		t->blocks++;
		t->bytes += malloc_usable_size(kept[i]);
	}
}

/* Blocks of 48 KiB and more: the peak, well above anything else the process holds. */
__attribute__((noinline)) static void burst_site(int n, int scale, struct site_truth *t)
{
	void *held[MAX_BLOCKS];

	for (int i = 0; i < n; i++) {
		held[i] = malloc((48000 + 1000 * i) * (size_t)scale);
		if (!held[i])
			exit(1);
		memset(held[i], 1, 64);
		t->blocks++;
		t->bytes += malloc_usable_size(held[i]);
	}
	for (int i = 0; i < n; i++)
		free(held[i]);
}

/* One block of DRIP_SIZE, never freed. */
__attribute__((noinline)) static void drip_site(void)
{
	if (!malloc(DRIP_SIZE))
		exit(1);
}

/* Until stop exists: with drip, a block every DRIP_MS on an absolute clock (no drift). */
static void hold(const char *stop, int drip)
{
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (access(stop, F_OK)) {
		if (drip)
			drip_site();
		next.tv_nsec += DRIP_MS * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
}

/* What one dripped block counts, as malloc_usable_size says. */
static size_t drip_usable(void)
{
	void *p = malloc(DRIP_SIZE);
	size_t usable = p ? malloc_usable_size(p) : 0;

	free(p);
	return usable;
}

/*
 * On a loaded machine heaptap may let a program start before its probes are in place
 * (counted as holds_skipped). A probe is a breakpoint (0xcc) written into the probed
 * code: wait until malloc's first bytes show one (10 s at most), so that the sites are
 * traced whole either way.
 */
static void wait_for_probes(void)
{
	const volatile unsigned char *code = (const volatile unsigned char *)(void *)&malloc;

	for (int tries = 0; tries < 200; tries++) {
		for (int i = 0; i < 16; i++) {
			if (code[i] == 0xcc)
				return;
		}
		usleep(50 * 1000);
	}
}

int main(int argc, char **argv)
{
	struct site_truth leak = { 0 }, burst = { 0 };
	int rank = rank_from_environment();
	const char *dir = ".", *stop = NULL, *go = NULL;
	int drip = 0, big_rank = -1;
	char path[4096];
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--drip"))
			drip = 1;
	}
	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--truth-dir"))
			dir = argv[++i];
		else if (!strcmp(argv[i], "--hold"))
			stop = argv[++i];
		else if (!strcmp(argv[i], "--go"))
			go = argv[++i];
		else if (!strcmp(argv[i], "--big-rank"))
			big_rank = atoi(argv[++i]);
	}
	if (rank < 0 || rank > 9) {
		fprintf(stderr, "rank_sites: no rank 0-9 in the environment\n");
		return 2;
	}
	while (go && access(go, F_OK))
		usleep(20 * 1000);
	if (!go)
		wait_for_probes();
	/* Each rank's figures differ: a mix-up between ranks shows. */
	leak_site(10 + 5 * rank, &leak);
	burst_site(8 + 4 * rank, rank == big_rank ? 20 : 1, &burst);
	snprintf(path, sizeof(path), "%s/owner-%d.json", dir, rank);
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "{\"rank\": %d, \"leak_site\": {\"blocks\": %ld, \"bytes\": %zu}, "
		   "\"burst_site\": {\"blocks\": %ld, \"bytes\": %zu}, "
		   "\"drip_site\": {\"bytes_per_second\": %zu}}\n",
		rank, leak.blocks, leak.bytes, burst.blocks, burst.bytes,
		drip ? drip_usable() * (1000 / DRIP_MS) : 0);
	if (fclose(f))
		return 1;
	if (stop)
		hold(stop, drip);
	return 0;
}
