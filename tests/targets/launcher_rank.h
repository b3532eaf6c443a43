/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A test program's MPI rank as its launcher set it, for a truth file of its own per rank. */
#ifndef HEAPTAP_LAUNCHER_RANK_H
#define HEAPTAP_LAUNCHER_RANK_H

#include <stdio.h>
#include <stdlib.h>

/* DIR/PREFIX-RANK.json into path (rank -1 when not launched as a rank). */
static inline void rank_truth_path(char *path, size_t size, const char *dir, const char *prefix)
{
	const char *names[] = { "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMIX_RANK", "PMI_RANK" };
	int rank = -1;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && rank < 0; i++) {
		const char *value = getenv(names[i]);

		if (value && *value)
			rank = atoi(value);
	}
	snprintf(path, size, "%s/%s-%d.json", dir, prefix, rank);
}

#endif
