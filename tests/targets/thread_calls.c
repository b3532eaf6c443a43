// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Threads that count their own calls, for the exact per-thread counts of sampled mode.
 *
 * Each of THREADS threads makes its own number of malloc, calloc, realloc (some of them
 * realloc(NULL, n), which glibc passes on to malloc: one call of the program's, not two)
 * and free calls, of sizes spread so that a few of them are sampled, then waits: the
 * process ends by exit() from the main thread, which kills the threads where they wait
 * (a thread that returned would free its tcache's blocks on its way out, calls the
 * program did not make). The truth file gives each thread's tid and counts:
 *   {"threads": {"TID": {"malloc": N, "calloc": N, "realloc": N, "free": N}, ...}}
 *
 * With --attach (for heaptap attach), it starts its threads at SIGUSR1 and stays, threads
 * and all, once the truth is written, until it is killed: their calls are then read from
 * a live process.
 *
 * thread_calls --truth FILE [--attach]
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 4
#define HELD 64

struct counts {
	pid_t tid;
	uint64_t malloc, calloc, realloc, free;
};

static struct counts counts[THREADS];
/* Through memory: a compiler would make realloc(NULL, n) with a constant NULL a malloc. */
static void *volatile nothing;
static pthread_barrier_t done;

static size_t next_size(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return 16 + (*state >> 33) % 20000;
}

static void *worker(void *arg)
{
	struct counts *c = arg;
	uint64_t state = (uint64_t)(c - counts) + 1;
	void *held[HELD] = { 0 };
	int rounds = 20000 * (int)(c - counts + 1);

	c->tid = gettid();
	for (int i = 0; i < rounds; i++) {
		int slot = i % HELD;

		if (held[slot]) {
			free(held[slot]);
			c->free++;
		}
		switch (i % 4) {
		case 0:
			held[slot] = malloc(next_size(&state));
			c->malloc++;
			break;
		case 1:
			held[slot] = calloc(1, next_size(&state));
			c->calloc++;
			break;
		case 2:
			held[slot] = realloc(nothing, next_size(&state));
			c->realloc++;
			break;
		default:
			held[slot] = malloc(64);
			c->malloc++;
			held[slot] = realloc(held[slot], next_size(&state));
			c->realloc++;
		}
		if (!held[slot])
			abort();
	}
	pthread_barrier_wait(&done);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	bool attach = argc == 4 && !strcmp(argv[3], "--attach");
	pthread_t threads[THREADS];
	sigset_t usr1;
	int sig;
	FILE *f;

	if ((argc != 3 && !attach) || strcmp(argv[1], "--truth")) {
		fprintf(stderr, "usage: thread_calls --truth FILE [--attach]\n");
		return 2;
	}
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	if (attach && sigwait(&usr1, &sig))
		return 1;
	pthread_barrier_init(&done, NULL, THREADS + 1);
	for (int i = 0; i < THREADS; i++) {
		if (pthread_create(&threads[i], NULL, worker, &counts[i]))
			return 1;
	}
	pthread_barrier_wait(&done);
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "{\"threads\": {");
	for (int i = 0; i < THREADS; i++)
		fprintf(f, "%s\"%d\": {\"malloc\": %llu, \"calloc\": %llu, \"realloc\": %llu, "
			   "\"free\": %llu}",
			i ? ", " : "", counts[i].tid, (unsigned long long)counts[i].malloc,
			(unsigned long long)counts[i].calloc, (unsigned long long)counts[i].realloc,
			(unsigned long long)counts[i].free);
	fprintf(f, "}}\n");
	if (fclose(f))
		return 1;
	while (attach)
		pause();
	exit(0);
}
