// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A rank that is not an MPI program: it learns its rank from the launcher's environment
 * (SLURM_PROCID under srun, OMPI_COMM_WORLD_RANK under mpirun), does rank-dependent work
 * through libgt, records it, and may hold its memory for live views.
 *
 * env_rank --truth-dir DIR [--hold FILE]
 *   writes DIR/truth-<rank>.json, then (--hold) keeps its blocks until FILE exists
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gtlib.h"

static int rank_from_environment(void)
{
	const char *names[] = { "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *value = getenv(names[i]);

		if (value && *value)
			return atoi(value);
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *dir = ".", *hold = NULL;
	int rank = rank_from_environment();
	char path[4096];

	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--truth-dir"))
			dir = argv[++i];
		else if (!strcmp(argv[i], "--hold"))
			hold = argv[++i];
	}
	if (rank < 0) {
		fprintf(stderr, "env_rank: no rank in the environment (SLURM_PROCID...)\n");
		return 2;
	}
	/* Each rank holds a different amount: a mix-up between ranks shows. */
	gt_make_blocks(10 + 7 * rank);
	if (rank % 2)
		gt_resize_blocks();
	gt_aligned_blocks();
	gt_release_aligned();
	snprintf(path, sizeof(path), "%s/truth-%d.json", dir, rank);
	if (gt_truth_write(path))
		return 1;
	while (hold && access(hold, F_OK))
		usleep(50 * 1000);
	return 0;
}
