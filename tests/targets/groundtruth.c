// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The ground-truth program: named worker threads, one at a time, drive libgt through
 * every entry point; libgt records what they did. Workers never exit: they park until
 * the process ends, so that glibc's thread-exit cleanup (free(NULL) of thread buffers)
 * adds nothing to their figures.
 *
 * groundtruth [--wait] [--truth FILE] [--park]
 *   --wait   block until SIGUSR1 before working, so heaptap can attach first
 *   --truth  write libgt's record of what happened to FILE
 *   --park   then stay alive, allocating nothing, until killed (for live views)
 *   --exit-workers   let workers exit instead of parking: glibc's thread-exit cleanup
 *            then runs in them (its tcache housekeeping must not be charged)
 *   --no-aligned   call no aligned entry point
 *   --aligned-sweep   worker 0 also calls every aligned entry point at many alignments
 *            and sizes (gt_aligned_sweep)
 * Entry points the allocator providing malloc lacks are never called (gtlib.c).
 */
#include <pthread.h>
#include <stdbool.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "gtlib.h"

#define NR_WORKERS 4

static sem_t done;
static bool exit_workers, aligned_sweep;

static void *worker(void *arg)
{
	long id = (long)arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%ld", id);
	pthread_setname_np(pthread_self(), name);
	/* Each worker its own pattern, so a mix-up between threads shows. */
	gt_make_blocks(20 + 15 * id);
	if (id == 0 && aligned_sweep)
		gt_aligned_sweep();
	if (id % 2 == 0)
		gt_resize_blocks();
	if (id != 1)
		gt_release_blocks(); /* worker 1 leaves its blocks to worker 2 */
	gt_aligned_blocks();
	if (id != 3)
		gt_release_aligned();
	if (id == 2)
		gt_edge_cases();
	sem_post(&done);
	while (!exit_workers)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *truth = NULL;
	bool wait = false, park = false;
	pthread_t t;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--wait"))
			wait = true;
		else if (!strcmp(argv[i], "--park"))
			park = true;
		else if (!strcmp(argv[i], "--exit-workers"))
			exit_workers = true;
		else if (!strcmp(argv[i], "--no-aligned"))
			gt_skip_aligned();
		else if (!strcmp(argv[i], "--aligned-sweep"))
			aligned_sweep = true;
		else if (!strcmp(argv[i], "--truth") && i + 1 < argc)
			truth = argv[++i];
	}
	if (wait) {
		sigset_t usr1;
		int sig;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		sigwait(&usr1, &sig);
	}
	sem_init(&done, 0, 0);
	for (long id = 0; id < NR_WORKERS; id++) {
		pthread_create(&t, NULL, worker, (void *)id);
		sem_wait(&done);
		if (exit_workers)
			pthread_join(t, NULL);
	}
	if (truth && gt_truth_write(truth)) {
		perror(truth);
		return 1;
	}
	while (park)
		pause();
	return 0;
}
