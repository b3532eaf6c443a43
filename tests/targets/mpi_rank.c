// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An MPI rank that does rank-dependent work through libgt and records it.
 * mpi_rank --truth-dir DIR   writes DIR/truth-<rank>.json
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "gtlib.h"

int main(int argc, char **argv)
{
	const char *dir = ".";
	char path[4096];
	int rank, err;

	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--truth-dir"))
			dir = argv[i + 1];
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	gt_make_blocks(10 + 7 * rank);
	if (rank % 2)
		gt_resize_blocks();
	gt_aligned_blocks();
	gt_release_blocks();
	MPI_Barrier(MPI_COMM_WORLD);
	snprintf(path, sizeof(path), "%s/truth-%d.json", dir, rank);
	err = gt_truth_write(path);
	MPI_Finalize();
	return err ? 1 : 0;
}
