// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An MPI rank that maps memory of known sizes from known functions, under Open MPI's memory
 * patcher (which rewrites libc's munmap, mremap, madvise and brk in MPI_Init): each rank
 * maps (rank + 1) * 64 KiB anonymous in rank_map and keeps it, maps 256 KiB in rank_scratch
 * and unmaps half; it says whether libc's munmap was rewritten, and prints a checksum of
 * what it wrote through every rank, the same with or without heaptap.
 *
 * mpi_mappings [--truth-dir DIR]   writes DIR/truth-<rank>.json
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define KIB 1024L
#define PATCH_BYTES 16


__attribute__((noinline)) static uint8_t *rank_map(int rank)
{
	uint8_t *p = mmap(NULL, (rank + 1) * 64 * KIB, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		abort();
	return p;
}

/* Mapped here, half unmapped here: through the patched munmap. */
__attribute__((noinline)) static uint64_t rank_scratch(int rank)
{
	uint8_t *p = mmap(NULL, 256 * KIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	uint64_t sum = 0;

	if (p == MAP_FAILED)
		abort();
	for (long i = 0; i < 256 * KIB; i += 4096)
		p[i] = (uint8_t)(i / 4096 + rank);
	for (long i = 0; i < 256 * KIB; i += 4096)
		sum += p[i];
	if (munmap(p + 128 * KIB, 128 * KIB))
		abort();
	return sum;
}

int main(int argc, char **argv)
{
	unsigned char before[PATCH_BYTES], after[PATCH_BYTES];
	const char *truth_dir = NULL;
	uint64_t mine, all = 0;
	int rank, size;
	uint8_t *kept;
	void *libc_munmap = dlsym(RTLD_DEFAULT, "munmap");

	for (int i = 1; i + 1 < argc; i++) {
		if (!strcmp(argv[i], "--truth-dir"))
			truth_dir = argv[++i];
	}
	memcpy(before, libc_munmap, PATCH_BYTES);
	MPI_Init(&argc, &argv);
	memcpy(after, libc_munmap, PATCH_BYTES);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	kept = rank_map(rank);
	memset(kept, rank + 1, (rank + 1) * 64 * KIB);
	mine = rank_scratch(rank) + kept[(rank + 1) * 64 * KIB - 1];
	MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (truth_dir) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/truth-%d.json", truth_dir, rank);
		f = fopen(path, "w");
		if (!f)
			abort();
		fprintf(f, "{\"rank\": %d, \"patched\": %s, \"rank_map\": %ld, "
			   "\"rank_scratch\": %ld}\n",
			rank, memcmp(before, after, PATCH_BYTES) ? "true" : "false",
			(rank + 1) * 64 * KIB, 256 * KIB);
		fclose(f);
	}
	printf("rank %d of %d: patched %s, checksum %llu\n", rank, size,
	       memcmp(before, after, PATCH_BYTES) ? "yes" : "no", (unsigned long long)all);
	MPI_Finalize();
	return 0;
}
