// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* MPI identity from /proc/PID/environ: NUL-separated NAME=VALUE, the last maybe unended. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rank.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so that ASan sees any read past the block's end. */
	char *block = malloc(size ? size : 1);
	struct mpi_identity id;

	if (!block)
		return 0;
	memcpy(block, data, size);
	mpi_identity_from_environ(block, size, &id);
	if (id.rank < -1 || id.world_size < -1 || id.local_rank < -1 ||
	    strnlen(id.job, sizeof(id.job)) == sizeof(id.job))
		abort(); /* out of range, or a job name without its NUL */
	free(block);
	return 0;
}
