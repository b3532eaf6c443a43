// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "procfs.h"
#include "rank.h"

const char *const mpi_launcher_names[] = {
	"mpirun", "mpiexec", "orterun", "orted", "prterun", "prted", "prte",
	"mpiexec.hydra", "hydra_pmi_proxy", "slurmstepd",
};
const size_t nr_mpi_launcher_names = sizeof(mpi_launcher_names) / sizeof(mpi_launcher_names[0]);

bool process_is_launcher(pid_t pid)
{
	char comm[64];
	bool found = false;

	if (!procfs_comm(pid, comm, sizeof(comm)))
		return false;
	for (size_t i = 0; i < nr_mpi_launcher_names && !found; i++)
		found = !strcmp(comm, mpi_launcher_names[i]);
	return found;
}

enum field { RANK, WORLD_SIZE, LOCAL_RANK, JOB, NR_FIELDS };

/* Within a field, earlier variables win: for ranks, the MPI library's own before the launcher's. */
static const struct {
	enum field field;
	const char *name;
} variables[] = {
	{ RANK, "OMPI_COMM_WORLD_RANK" },
	{ RANK, "PMI_RANK" },
	{ RANK, "PMIX_RANK" },
	{ RANK, "SLURM_PROCID" },
	{ WORLD_SIZE, "OMPI_COMM_WORLD_SIZE" },
	{ WORLD_SIZE, "PMI_SIZE" },
	{ WORLD_SIZE, "SLURM_NTASKS" },
	{ LOCAL_RANK, "OMPI_COMM_WORLD_LOCAL_RANK" },
	{ LOCAL_RANK, "MPI_LOCALRANKID" },
	{ LOCAL_RANK, "SLURM_LOCALID" },
	/*
	 * A job is the resource manager's first: a Slurm job's steps (srun, or mpirun inside
	 * salloc) share SLURM_JOB_ID, while each step gets its own PMIx namespace. Then the
	 * launcher's (Open MPI, PMIx), then other batch systems'.
	 */
	{ JOB, "SLURM_JOB_ID" },
	{ JOB, "PMIX_NAMESPACE" },
	{ JOB, "OMPI_MCA_ess_base_jobid" },
	{ JOB, "PBS_JOBID" },
	{ JOB, "LSB_JOBID" },
	{ JOB, "FLUX_JOB_ID" },
};
#define NR_VARIABLES (sizeof(variables) / sizeof(variables[0]))

static int parse_count(const char *value)
{
	char *end;
	long n = strtol(value, &end, 10);

	if (end == value || *end || n < 0 || n > 1 << 30)
		return -1;
	return (int)n;
}

void mpi_identity_from_environ(const char *block, size_t len, struct mpi_identity *out)
{
	const char *found[NR_VARIABLES] = {};
	const char *p = block, *end = block + len;
	int *numbers[] = { [RANK] = &out->rank, [WORLD_SIZE] = &out->world_size,
			   [LOCAL_RANK] = &out->local_rank };
	bool done[NR_FIELDS] = {};

	while (p < end) {
		size_t n = strnlen(p, end - p);

		for (size_t i = 0; i < NR_VARIABLES && p + n < end; i++) {
			size_t name_len = strlen(variables[i].name);

			if (n > name_len && !strncmp(p, variables[i].name, name_len) &&
			    p[name_len] == '=')
				found[i] = p + name_len + 1;
		}
		p += n + 1;
	}
	out->rank = out->world_size = out->local_rank = -1;
	out->job[0] = '\0';
	for (size_t i = 0; i < NR_VARIABLES; i++) {
		enum field f = variables[i].field;

		if (!found[i] || done[f])
			continue;
		if (f == JOB) {
			snprintf(out->job, sizeof(out->job), "%s", found[i]);
			done[f] = out->job[0] != '\0';
		} else {
			*numbers[f] = parse_count(found[i]);
			done[f] = *numbers[f] >= 0;
		}
	}
}

void mpi_identity_of_process(pid_t pid, struct mpi_identity *out)
{
	size_t len;
	char *env;

	if (procfs_read(pid, "environ", &env, &len)) {
		mpi_identity_from_environ("", 0, out);
		return;
	}
	mpi_identity_from_environ(env, len, out);
	free(env);
}
