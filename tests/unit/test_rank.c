// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "rank.h"

TestSuite(rank);

#define ENV(s) s, sizeof(s)

Test(rank, open_mpi_rank)
{
	cr_assert(eq(int, rank_from_environ(ENV("PATH=/bin\0OMPI_COMM_WORLD_RANK=3\0HOME=/")), 3));
}

Test(rank, the_mpi_library_wins_over_the_resource_manager)
{
	cr_assert(eq(int, rank_from_environ(ENV("SLURM_PROCID=7\0PMI_RANK=2\0")), 2));
	cr_assert(eq(int, rank_from_environ(ENV("SLURM_PROCID=7\0PMIX_RANK=5\0")), 5));
	cr_assert(eq(int, rank_from_environ(ENV("SLURM_PROCID=7\0")), 7));
}

Test(rank, no_rank_or_a_malformed_one)
{
	cr_assert(eq(int, rank_from_environ(ENV("PATH=/bin\0")), -1));
	cr_assert(eq(int, rank_from_environ(ENV("PMI_RANK=two\0")), -1));
	cr_assert(eq(int, rank_from_environ(ENV("PMI_RANKING=1\0")), -1));
	cr_assert(eq(int, rank_from_environ(ENV("OMPI_COMM_WORLD_RANK=\0")), -1));
}
