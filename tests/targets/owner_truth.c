// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Who holds the memory, with its own truth: each allocation site below is a function of
 * its own, and the program counts what each holds (malloc_usable_size), what it
 * allocated, and what each held when the program's total peaked. Every call and its count
 * happen under one lock, so the order heaptap sees is the order counted.
 *
 *   leak_site       leaks a block every 50 ms for --leak-seconds (default 5)
 *   churn_site      allocates and frees many short-lived blocks meanwhile
 *   startup_site    allocates a few blocks at start and holds them (not a leak)
 *   peak_site       holds 8 MiB for a moment: the process's peak
 *   xthread_site    its blocks freed by another thread
 *   realloc_site, align_site, calloc_site: realloc chains, memalign family, failed calls
 *   pre_site        blocks allocated before --wait, freed after it (attach: before tracing)
 *
 * owner_truth [--wait] [--truth FILE] [--leak-seconds S]
 * Built without frame pointers: only .eh_frame unwinding finds the sites.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum site { PRE, STARTUP, LEAK, CHURN, PEAK, XTHREAD, REALLOC, ALIGN, CALLOC, NR_SITES };

static const char *const site_names[NR_SITES] = {
	"pre_site", "startup_site", "leak_site", "churn_site", "peak_site", "xthread_site",
	"realloc_site", "align_site", "calloc_site",
};

struct figures {
	uint64_t blocks, bytes, requested, allocated_blocks, allocated_bytes;
};

static struct figures sites[NR_SITES], at_peak[NR_SITES];
static uint64_t total, peak_total, pre_freed_calls, pre_freed_bytes;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double leak_seconds = 5;
static uint64_t leak_started_ns, leak_ended_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Callers hold the lock. */
static void count_block(enum site s, void *p, size_t requested)
{
	size_t usable = malloc_usable_size(p);

	sites[s].blocks++;
	sites[s].bytes += usable;
	sites[s].requested += requested;
	sites[s].allocated_blocks++;
	sites[s].allocated_bytes += usable;
	total += usable;
	if (total > peak_total) {
		peak_total = total;
		memcpy(at_peak, sites, sizeof(sites));
	}
}

static void uncount_block(enum site s, void *p, size_t requested)
{
	size_t usable = malloc_usable_size(p);

	sites[s].blocks--;
	sites[s].bytes -= usable;
	sites[s].requested -= requested;
	total -= usable;
}

/* The sites: each allocation is its own frame, never inlined nor tail-called. */
static __attribute__((noinline)) void *pre_site(size_t n)
{
	return malloc(n);
}

static __attribute__((noinline)) void *startup_site(size_t n)
{
	return malloc(n);
}

static __attribute__((noinline)) void *leak_site(size_t n)
{
	return malloc(n);
}

static __attribute__((noinline)) void *churn_site(size_t n)
{
	return malloc(n);
}

static __attribute__((noinline)) void *peak_site(size_t n)
{
	return malloc(n);
}

static __attribute__((noinline)) void *xthread_site(size_t n)
{
	return malloc(n);
}

static __attribute__((noinline)) void *realloc_site(void *p, size_t n)
{
	return realloc(p, n);
}

static __attribute__((noinline)) int align_site(int kind, void **p, size_t align, size_t n)
{
	switch (kind) {
	case 0:
		return posix_memalign(p, align, n);
	case 1:
		*p = aligned_alloc(align, n);
		break;
	default:
		*p = memalign(align, n);
	}
	return *p ? 0 : ENOMEM;
}

static __attribute__((noinline)) void *calloc_site(size_t n, size_t size)
{
	return calloc(n, size);
}

static void *allocate(enum site s, size_t n)
{
	void *p;

	pthread_mutex_lock(&lock);
	switch (s) {
	case PRE: p = pre_site(n); break;
	case STARTUP: p = startup_site(n); break;
	case LEAK: p = leak_site(n); break;
	case CHURN: p = churn_site(n); break;
	case PEAK: p = peak_site(n); break;
	default: p = xthread_site(n); break;
	}
	count_block(s, p, n);
	pthread_mutex_unlock(&lock);
	return p;
}

static void release(enum site s, void *p, size_t requested)
{
	pthread_mutex_lock(&lock);
	uncount_block(s, p, requested);
	free(p);
	pthread_mutex_unlock(&lock);
}

static void *leaker(void *arg)
{
	uint64_t end;

	(void)arg;
	leak_started_ns = now_ns();
	end = leak_started_ns + (uint64_t)(leak_seconds * 1e9);
	while (now_ns() < end) {
		allocate(LEAK, 1000); /* never freed */
		usleep(50 * 1000);
	}
	leak_ended_ns = now_ns();
	return NULL;
}

static volatile bool churning = true;

static void *churner(void *arg)
{
	(void)arg;
	while (churning) {
		void *p[16];

		for (int i = 0; i < 16; i++)
			p[i] = allocate(CHURN, 24 + 8 * i);
		for (int i = 0; i < 16; i++)
			release(CHURN, p[i], 24 + 8 * i);
		usleep(1000);
	}
	return NULL;
}

/* Blocks freed by another thread leave xthread_site all the same. */
static void *xthread_freer(void *arg)
{
	void **blocks = arg;

	for (int i = 0; i < 30; i++)
		release(XTHREAD, blocks[i], 100 + i);
	return NULL;
}

static void realloc_chain(void)
{
	static const size_t sizes[] = { 10, 100, 5000, 200000, 300 };
	void *p = NULL, *q;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (p)
			uncount_block(REALLOC, p, sizes[i - 1]);
		p = realloc_site(p, sizes[i]);
		count_block(REALLOC, p, sizes[i]);
	}
	/* A failed realloc leaves the block where it was. */
	q = realloc_site(p, SIZE_MAX / 2);
	if (q) {
		fprintf(stderr, "realloc of SIZE_MAX / 2 bytes succeeded\n");
		exit(1);
	}
	/* realloc(q, 0) frees q. */
	q = realloc_site(NULL, 64);
	count_block(REALLOC, q, 64);
	uncount_block(REALLOC, q, 64);
	if (realloc_site(q, 0)) {
		fprintf(stderr, "realloc(p, 0) returned a block\n");
		exit(1);
	}
	pthread_mutex_unlock(&lock);
}

static void aligned_and_failed(void)
{
	void *p = NULL;

	pthread_mutex_lock(&lock);
	if (align_site(0, &p, 64, 1000) == 0)
		count_block(ALIGN, p, 1000);
	if (align_site(0, &p, 3, 100) != EINVAL) { /* not a power of two: fails */
		fprintf(stderr, "posix_memalign with alignment 3 did not fail\n");
		exit(1);
	}
	if (align_site(1, &p, 256, 512) == 0)
		count_block(ALIGN, p, 512);
	if (align_site(2, &p, 4096, 100) == 0)
		count_block(ALIGN, p, 100);
	p = calloc_site(10, 100);
	count_block(CALLOC, p, 1000);
	if (calloc_site(SIZE_MAX / 2, 4)) { /* the product overflows */
		fprintf(stderr, "an overflowing calloc succeeded\n");
		exit(1);
	}
	pthread_mutex_unlock(&lock);
}

static void hold_the_peak(void)
{
	void *big[8];

	/* All at once, under the lock: no other block moves while the peak is held. */
	pthread_mutex_lock(&lock);
	for (int i = 0; i < 8; i++) {
		big[i] = peak_site(1 << 20);
		memset(big[i], 1, 1 << 20);
		count_block(PEAK, big[i], 1 << 20);
	}
	for (int i = 0; i < 8; i++) {
		uncount_block(PEAK, big[i], 1 << 20);
		free(big[i]);
	}
	pthread_mutex_unlock(&lock);
}

static void write_truth(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "{\"peak_total\": %llu, \"pre_freed_calls\": %llu, \"pre_freed_bytes\": %llu,"
		   " \"leak_bytes_per_second\": %.1f, \"sites\": {",
		(unsigned long long)peak_total, (unsigned long long)pre_freed_calls,
		(unsigned long long)pre_freed_bytes,
		sites[LEAK].bytes / ((leak_ended_ns - leak_started_ns) / 1e9));
	for (int s = 0; s < NR_SITES; s++)
		fprintf(f, "%s\n\"%s\": {\"blocks\": %llu, \"bytes\": %llu, \"requested\": %llu, "
			   "\"allocated_blocks\": %llu, \"allocated_bytes\": %llu, "
			   "\"peak_blocks\": %llu, \"peak_bytes\": %llu}",
			s ? "," : "", site_names[s], (unsigned long long)sites[s].blocks,
			(unsigned long long)sites[s].bytes, (unsigned long long)sites[s].requested,
			(unsigned long long)sites[s].allocated_blocks,
			(unsigned long long)sites[s].allocated_bytes,
			(unsigned long long)at_peak[s].blocks, (unsigned long long)at_peak[s].bytes);
	fprintf(f, "}}\n");
	fclose(f);
}

int main(int argc, char **argv)
{
	const char *truth = NULL;
	void *pre[10], *xthread[50];
	pthread_t leak_thread, churn_thread, freer;
	bool wait = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--wait"))
			wait = true;
		else if (!strcmp(argv[i], "--truth") && i + 1 < argc)
			truth = argv[++i];
		else if (!strcmp(argv[i], "--leak-seconds") && i + 1 < argc)
			leak_seconds = atof(argv[++i]);
	}
	for (int i = 0; i < 10; i++)
		pre[i] = allocate(PRE, 40 + 100 * i);
	if (wait) {
		sigset_t usr1;
		int sig;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		sigwait(&usr1, &sig);
		/* Blocks from before tracing: their frees are all heaptap sees of them. */
		memset(sites, 0, sizeof(sites));
		total = peak_total = 0;
		for (int i = 0; i < 10; i++) {
			pre_freed_calls++;
			pre_freed_bytes += malloc_usable_size(pre[i]);
			free(pre[i]);
		}
	} else {
		for (int i = 0; i < 10; i++)
			release(PRE, pre[i], 40 + 100 * i);
	}
	for (int i = 0; i < 4; i++)
		allocate(STARTUP, 3000);
	pthread_create(&leak_thread, NULL, leaker, NULL);
	pthread_create(&churn_thread, NULL, churner, NULL);
	realloc_chain();
	aligned_and_failed();
	for (int i = 0; i < 50; i++)
		xthread[i] = allocate(XTHREAD, 100 + i);
	pthread_create(&freer, NULL, xthread_freer, xthread);
	pthread_join(freer, NULL);
	usleep(500 * 1000);
	hold_the_peak();
	pthread_join(leak_thread, NULL);
	churning = false;
	pthread_join(churn_thread, NULL);
	if (truth)
		write_truth(truth);
	return 0;
}
