/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Who a process is in an MPI job, as its launcher put it in the environment. */
#ifndef HEAPTAP_RANK_H
#define HEAPTAP_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct mpi_identity {
	int rank;	/* -1: not an MPI rank */
	int world_size; /* -1 when unknown, as the next two */
	int local_rank;
	char job[64];	/* "" */
};

/*
 * From an environment block (NUL-separated NAME=VALUE): Open MPI's OMPI_COMM_WORLD_*,
 * MPICH/Hydra's and Intel MPI's PMI_* and MPI_LOCALRANKID, PMIx's PMIX_RANK and
 * PMIX_NAMESPACE, Slurm's SLURM_*; the MPI library's own word first for ranks. The job:
 * SLURM_JOB_ID, else PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid, PBS_JOBID, LSB_JOBID,
 * FLUX_JOB_ID.
 */
void mpi_identity_from_environ(const char *block, size_t len, struct mpi_identity *out);
/* Program names of MPI launchers, as the kernel keeps them (at most 15 characters). */
extern const char *const mpi_launcher_names[];
extern const size_t nr_mpi_launcher_names;
/* Does pid run one of them now (/proc/PID/comm)? false if it cannot be read. */
bool process_is_launcher(pid_t pid);

/* From /proc/PID/environ; everything unknown when it cannot be read. */
void mpi_identity_of_process(pid_t pid, struct mpi_identity *out);

#endif
