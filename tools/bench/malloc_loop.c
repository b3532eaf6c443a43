// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A tight malloc+free loop that times itself: malloc_loop N prints "ns_per_pair X".
 * The timing is taken inside, so start-up and heaptap's own set-up do not count.
 * malloc_loop N --wait first waits for SIGUSR1, so that heaptap can attach.
 * malloc_loop N --depth D runs the loop D calls below main, for the cost of unwinding.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static __attribute__((noinline)) void pairs(long n)
{
	for (long i = 0; i < n; i++) {
		void *p = malloc(64);

		/* Keep the compiler from pairing the two calls away. */
		__asm__ volatile("" : : "r"(p) : "memory");
		free(p);
	}
}

/* pairs(n), depth calls down. */
static __attribute__((noinline)) double timed_pairs_at(int depth, long n)
{
	double start, elapsed;

	if (depth > 0) {
		elapsed = timed_pairs_at(depth - 1, n);
		__asm__ volatile("" ::: "memory"); /* work after the call: no tail call */
		return elapsed;
	}
	pairs(n / 10 + 1); /* warm up: tcache, page faults, probes installed */
	start = now_ns();
	pairs(n);
	return now_ns() - start;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	int depth = 0;

	if (n <= 0) {
		fprintf(stderr, "usage: malloc_loop ITERATIONS [--wait | --depth CALLS]\n");
		return 2;
	}
	if (argc > 3 && !strcmp(argv[2], "--depth"))
		depth = atoi(argv[3]);
	if (argc > 2 && !strcmp(argv[2], "--wait")) {
		sigset_t usr1;
		int sig;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		sigwait(&usr1, &sig);
	}
	printf("ns_per_pair %.1f\n", timed_pairs_at(depth, n) / n);
	return 0;
}
