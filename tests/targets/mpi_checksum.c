// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An MPI rank that checksums its own work and says which phase it is in: loader events
 * before MPI_Init (libm, zlib, a plugin), MPI_Init's own, a work loop that allocates and
 * loads and unloads a plugin at every step, MPI_Finalize's. Prints one line per rank:
 * the same with or without heaptap, and whatever happens to heaptap meanwhile.
 *
 * mpi_checksum [--log DIR] [--steps N] [--step-ms MS]
 *   --log   append "<phase> <CLOCK_MONOTONIC ns>" lines to DIR/log-<rank>.txt
 */
#include <fcntl.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cksum.h"

int main(int argc, char **argv)
{
	const char *log_dir = NULL, *env_rank = getenv("OMPI_COMM_WORLD_RANK");
	const char *dir = cksum_self_dir();
	int steps = 20, step_ms = 20, rank, size, log = -1;
	uint64_t h = 0xcbf29ce484222325ull, world;
	char path[4096], what[64];

	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--log"))
			log_dir = argv[++i];
		else if (!strcmp(argv[i], "--steps"))
			steps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--step-ms"))
			step_ms = atoi(argv[++i]);
	}
	if (log_dir) {
		/* The rank is known before MPI_Init from the launcher's environment. */
		snprintf(path, sizeof(path), "%s/log-%s.txt", log_dir, env_rank ? env_rank : "x");
		log = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (log < 0) {
			perror(path);
			return 2;
		}
	}
	cksum_mark(log, "start");
	h = cksum_libm(h);
	h = cksum_step(h, 0, dir);
	cksum_mark(log, "init-begin");
	MPI_Init(&argc, &argv);
	cksum_mark(log, "init-end");
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int step = 1; step <= steps && h; step++) {
		uint64_t mine = cksum_step(h, step * (rank + 1), dir), sum = 0;

		/* Every rank's state flows into every other's: a lost step shows in all. */
		MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
		h = mine ^ sum;
		snprintf(what, sizeof(what), "step-%d", step);
		cksum_mark(log, what);
		cksum_sleep_ms(step_ms);
	}
	MPI_Allreduce(&h, &world, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
	cksum_mark(log, "finalize-begin");
	MPI_Finalize();
	cksum_mark(log, "finalize-end");
	if (!h) {
		fprintf(stderr, "rank %d: the work failed\n", rank);
		return 1;
	}
	printf("rank %d of %d checksum %016" PRIx64 " world %016" PRIx64 "\n", rank, size, h,
	       world);
	return 0;
}
