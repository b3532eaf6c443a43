// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "rank.h"

TestSuite(rank);

#define ENV(s) s, sizeof(s)

static struct mpi_identity of(const char *block, size_t len)
{
	struct mpi_identity id;

	mpi_identity_from_environ(block, len, &id);
	return id;
}

Test(rank, open_mpi)
{
	struct mpi_identity id = of(ENV("PATH=/bin\0OMPI_COMM_WORLD_RANK=3\0"
					"OMPI_COMM_WORLD_SIZE=8\0OMPI_COMM_WORLD_LOCAL_RANK=1\0"
					"PMIX_NAMESPACE=prterun-node1-1234@1\0HOME=/"));

	cr_assert(eq(int, id.rank, 3));
	cr_assert(eq(int, id.world_size, 8));
	cr_assert(eq(int, id.local_rank, 1));
	cr_assert(eq(str, id.job, "prterun-node1-1234@1"));
}

Test(rank, hydra_and_slurm)
{
	struct mpi_identity hydra = of(ENV("PMI_RANK=5\0PMI_SIZE=6\0MPI_LOCALRANKID=2\0"));
	struct mpi_identity slurm = of(ENV("SLURM_PROCID=7\0SLURM_NTASKS=16\0SLURM_LOCALID=3\0"
					   "SLURM_JOB_ID=4242\0"));

	cr_assert(eq(int, hydra.rank, 5));
	cr_assert(eq(int, hydra.world_size, 6));
	cr_assert(eq(int, hydra.local_rank, 2));
	cr_assert(eq(str, hydra.job, ""));
	cr_assert(eq(int, slurm.rank, 7));
	cr_assert(eq(int, slurm.world_size, 16));
	cr_assert(eq(int, slurm.local_rank, 3));
	cr_assert(eq(str, slurm.job, "4242"));
}

Test(rank, the_mpi_library_wins_over_the_resource_manager)
{
	cr_assert(eq(int, of(ENV("SLURM_PROCID=7\0PMI_RANK=2\0")).rank, 2));
	cr_assert(eq(int, of(ENV("SLURM_PROCID=7\0PMIX_RANK=5\0")).rank, 5));
	cr_assert(eq(int, of(ENV("SLURM_PROCID=7\0")).rank, 7));
}

Test(rank, a_slurm_job_is_one_job_across_its_steps)
{
	cr_assert(eq(str, of(ENV("SLURM_JOB_ID=9\0PMIX_NAMESPACE=slurm.pmix.9.0\0")).job, "9"));
	cr_assert(eq(str, of(ENV("PMIX_NAMESPACE=ns\0OMPI_MCA_ess_base_jobid=77\0")).job, "ns"));
	cr_assert(eq(str, of(ENV("OMPI_MCA_ess_base_jobid=77\0PBS_JOBID=12.server\0")).job, "77"));
	cr_assert(eq(str, of(ENV("PBS_JOBID=12.server\0")).job, "12.server"));
}

Test(rank, no_rank_or_a_malformed_one)
{
	struct mpi_identity none = of(ENV("PATH=/bin\0"));

	cr_assert(eq(int, none.rank, -1));
	cr_assert(eq(int, none.world_size, -1));
	cr_assert(eq(int, none.local_rank, -1));
	cr_assert(eq(int, of(ENV("PMI_RANK=two\0")).rank, -1));
	cr_assert(eq(int, of(ENV("PMI_RANKING=1\0")).rank, -1));
	cr_assert(eq(int, of(ENV("OMPI_COMM_WORLD_RANK=\0")).rank, -1));
	/* A malformed value does not hide a good one further down the list. */
	cr_assert(eq(int, of(ENV("OMPI_COMM_WORLD_RANK=x\0SLURM_PROCID=4\0")).rank, 4));
}
