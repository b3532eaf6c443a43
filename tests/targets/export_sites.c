// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Three allocation sites with known figures, for the exports' tests (--pprof, --folded):
 * leak_site keeps every block it allocates, churn_site frees each at once, and two threads
 * (holder-1, holder-2) at once keep the blocks they allocate at hold_site. At the end the
 * program prints its own truth:
 *   truth leak_site BLOCKS BYTES churn_site CALLS BYTES hold_site BLOCKS BYTES
 * then one line per thread and site it allocated at and kept from:
 *   thread TID NAME SITE BLOCKS BYTES
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
#define HOLDERS 2

struct site_truth {
	long blocks;
	size_t bytes;
};

/* One holder thread: its share of the blocks, [first, end), and what it counted. */
struct holder {
	int first, end;
	char name[16];
	pid_t tid;
	struct site_truth truth;
};

static pthread_barrier_t holders_ready;

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

__attribute__((noinline)) static void hold_site(struct holder *h)
{
	for (int i = h->first; i < h->end; i++) {
		kept[LEAKS + i] = calloc(1, 1000 + 8 * i);
		if (!kept[LEAKS + i])
			exit(1);
		h->truth.blocks++;
		h->truth.bytes += malloc_usable_size(kept[LEAKS + i]);
	}
}

/* Named before it allocates: heaptap names a thread when its calls happen. */
static void *holder(void *arg)
{
	struct holder *h = arg;

	h->tid = gettid();
	pthread_setname_np(pthread_self(), h->name);
	pthread_barrier_wait(&holders_ready); /* both at hold_site at once */
	hold_site(h);
	return NULL;
}

int main(int argc, char **argv)
{
	struct site_truth leak = { 0 }, churn = { 0 }, hold = { 0 };
	struct holder holders[HOLDERS];
	pthread_t threads[HOLDERS];

	while (argc > 1 && access(argv[1], F_OK))
		usleep(10000);

	leak_site(&leak);
	churn_site(&churn);
	if (pthread_barrier_init(&holders_ready, NULL, HOLDERS))
		return 1;
	for (int i = 0; i < HOLDERS; i++) {
		holders[i] = (struct holder){ .first = i * HOLDS / HOLDERS,
					      .end = (i + 1) * HOLDS / HOLDERS };
		snprintf(holders[i].name, sizeof(holders[i].name), "holder-%d", i + 1);
		if (pthread_create(&threads[i], NULL, holder, &holders[i]))
			return 1;
	}
	for (int i = 0; i < HOLDERS; i++) {
		if (pthread_join(threads[i], NULL))
			return 1;
		hold.blocks += holders[i].truth.blocks;
		hold.bytes += holders[i].truth.bytes;
	}
	printf("truth leak_site %ld %zu churn_site %ld %zu hold_site %ld %zu\n", leak.blocks,
	       leak.bytes, churn.blocks, churn.bytes, hold.blocks, hold.bytes);
	printf("thread %d main leak_site %ld %zu\n", (int)gettid(), leak.blocks, leak.bytes);
	for (int i = 0; i < HOLDERS; i++)
		printf("thread %d %s hold_site %ld %zu\n", (int)holders[i].tid, holders[i].name,
		       holders[i].truth.blocks, holders[i].truth.bytes);
	return fflush(stdout) ? 1 : 0;
}
