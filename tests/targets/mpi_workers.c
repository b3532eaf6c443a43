// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An MPI rank whose named worker threads, one at a time, do rank-dependent work through
 * libgt, and which records its own truth: the workers' threads and libgt's functions.
 *   mpi_workers --truth-dir DIR [--hold FILE]
 * With --hold, once every worker holds its blocks the rank writes DIR/held-<rank>.json
 * (the truth then) and waits for FILE to exist before worker 0 frees everything. At the
 * end it writes DIR/truth-<rank>.json. Workers park until the process exits, so that
 * glibc's thread-exit cleanup adds nothing to their figures.
 */
#include <mpi.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "gtlib.h"

#define NR_WORKERS 3

static int rank;
static sem_t done, phase2[NR_WORKERS];

static void *worker(void *arg)
{
	long id = (long)arg;
	char name[16];

	snprintf(name, sizeof(name), "r%d-worker-%ld", rank, id);
	pthread_setname_np(pthread_self(), name);
	gt_make_blocks(10 + 5 * (int)id + 3 * rank);
	if ((id + rank) % 2)
		gt_resize_blocks();
	gt_aligned_blocks();
	sem_post(&done);
	sem_wait(&phase2[id]);
	if (id == 0) {
		gt_release_blocks();
		gt_release_aligned();
	}
	sem_post(&done);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *dir = ".", *hold = NULL;
	char path[4096];
	pthread_t t;
	int err;

	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--truth-dir"))
			dir = argv[i + 1];
		else if (!strcmp(argv[i], "--hold"))
			hold = argv[i + 1];
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	sem_init(&done, 0, 0);
	for (long id = 0; id < NR_WORKERS; id++) {
		sem_init(&phase2[id], 0, 0);
		pthread_create(&t, NULL, worker, (void *)id);
		sem_wait(&done);
	}
	if (hold) {
		snprintf(path, sizeof(path), "%s/held-%d.json", dir, rank);
		if (gt_truth_write(path))
			return 1;
		while (access(hold, F_OK))
			usleep(20000);
	}
	for (long id = 0; id < NR_WORKERS; id++) {
		sem_post(&phase2[id]);
		sem_wait(&done);
	}
	snprintf(path, sizeof(path), "%s/truth-%d.json", dir, rank);
	err = gt_truth_write(path);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return err ? 1 : 0;
}
