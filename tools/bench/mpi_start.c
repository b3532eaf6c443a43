// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * mpi_start: the start of an MPI job and little else -- MPI_Init, a few allocations,
 * ten MPI_Alltoall, MPI_Finalize. Rank 0 prints "mpi_start ok RANKS" once every rank has
 * checked what it received, so a run that went wrong cannot pass for a fast one.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PER_PEER 1024 /* ints each rank sends each other rank per exchange */
#define EXCHANGES 10

int main(int argc, char **argv)
{
	int rank, size, bad = 0, all_bad = 0;
	int *out, *in;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int round = 0; round < EXCHANGES; round++) {
		/* Fresh buffers each round: allocation is part of what a start-up does. */
		out = malloc(sizeof(*out) * PER_PEER * size);
		in = malloc(sizeof(*in) * PER_PEER * size);
		if (!out || !in)
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (int i = 0; i < PER_PEER * size; i++)
			out[i] = round * 1000000 + rank * 1000 + i / PER_PEER;
		MPI_Alltoall(out, PER_PEER, MPI_INT, in, PER_PEER, MPI_INT, MPI_COMM_WORLD);
		/* Block p came from rank p, which addressed it to us. */
		for (int i = 0; i < PER_PEER * size; i++)
			bad += in[i] != round * 1000000 + (i / PER_PEER) * 1000 + rank;
		free(in);
		free(out);
	}
	MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf(all_bad ? "mpi_start FAILED %d wrong values\n" : "mpi_start ok %d\n",
		       all_bad ? all_bad : size);
	MPI_Finalize();
	return all_bad != 0;
}
