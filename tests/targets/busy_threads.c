// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Threads that call malloc and free without pause while heaptap attaches, then, on
 * SIGUSR1, make exactly COUNTED_CALLOCS callocs each: the only callocs they ever make.
 * The truth file lists their tids; every one of them must show all its callocs.
 *
 * busy_threads --truth FILE
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NR_THREADS 4
#define COUNTED_CALLOCS 500

static atomic_bool released;
static sem_t counted;
static pid_t tids[NR_THREADS];
/*
 * Keeps the compiler from removing a malloc whose block is freed unused: one slot per
 * thread, since a shared one lets a thread free the block another just stored there.
 */
static void *volatile sink[NR_THREADS];

static void *churn_then_count(void *arg)
{
	long id = (long)arg;

	tids[id] = gettid();
	while (!atomic_load(&released)) {
		sink[id] = malloc(16 + id);
		free(sink[id]);
	}
	for (int i = 0; i < COUNTED_CALLOCS; i++) {
		sink[id] = calloc(1, 100 + id);
		free(sink[id]);
	}
	sem_post(&counted);
	for (;;)
		pause(); /* exit_group ends it: no thread-exit cleanup in the figures */
	return NULL;
}

int main(int argc, char **argv)
{
	const char *truth = argc == 3 && !strcmp(argv[1], "--truth") ? argv[2] : NULL;
	sigset_t usr1;
	char text[512];
	int sig, len = 0;
	FILE *f;

	if (!truth) {
		fprintf(stderr, "usage: busy_threads --truth FILE\n");
		return 2;
	}
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL); /* the threads inherit the mask */
	sem_init(&counted, 0, 0);
	for (long id = 0; id < NR_THREADS; id++) {
		pthread_t t;

		pthread_create(&t, NULL, churn_then_count, (void *)id);
	}
	sigwait(&usr1, &sig);
	atomic_store(&released, true);
	for (int i = 0; i < NR_THREADS; i++)
		sem_wait(&counted);
	/* Formatted before the file is opened: stdio's own mallocs stay in main's thread. */
	len += snprintf(text + len, sizeof(text) - len, "{\"callocs\": %d, \"tids\": [",
			COUNTED_CALLOCS);
	for (int i = 0; i < NR_THREADS; i++)
		len += snprintf(text + len, sizeof(text) - len, "%s%d", i ? ", " : "", tids[i]);
	snprintf(text + len, sizeof(text) - len, "]}\n");
	f = fopen(truth, "w");
	if (!f || fputs(text, f) == EOF || fclose(f)) {
		perror(truth);
		return 1;
	}
	return 0;
}
