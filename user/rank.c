// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdlib.h>
#include <string.h>
#include "procfs.h"
#include "rank.h"

/* In order of preference: the MPI library's own word before the resource manager's. */
static const char *const rank_variables[] = {
	"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
};
#define NR_RANK_VARIABLES (sizeof(rank_variables) / sizeof(rank_variables[0]))

static int parse_rank(const char *value)
{
	char *end;
	long rank = strtol(value, &end, 10);

	if (end == value || *end || rank < 0 || rank > 1 << 30)
		return -1;
	return (int)rank;
}

int rank_from_environ(const char *block, size_t len)
{
	int found[NR_RANK_VARIABLES];
	const char *p = block, *end = block + len;

	for (size_t i = 0; i < NR_RANK_VARIABLES; i++)
		found[i] = -1;
	while (p < end) {
		size_t n = strnlen(p, end - p);

		for (size_t i = 0; i < NR_RANK_VARIABLES; i++) {
			size_t name_len = strlen(rank_variables[i]);

			if (n > name_len && !strncmp(p, rank_variables[i], name_len) &&
			    p[name_len] == '=' && p + n < end)
				found[i] = parse_rank(p + name_len + 1);
		}
		p += n + 1;
	}
	for (size_t i = 0; i < NR_RANK_VARIABLES; i++) {
		if (found[i] >= 0)
			return found[i];
	}
	return -1;
}

int rank_of_process(pid_t pid)
{
	size_t len;
	char *env;
	int rank;

	if (procfs_read(pid, "environ", &env, &len))
		return -1;
	rank = rank_from_environ(env, len);
	free(env);
	return rank;
}
