// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Allocates through a small library (libbudget_small.so) and through one whose .eh_frame
 * is large (libbigeh.so), counting both, and prints:
 *   small malloc N calloc N realloc N free N
 *   big malloc N calloc N realloc N free N
 *   checksum X
 * The output is the same whether heaptap traces it or not.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "budget.h"

uint64_t small_alloc(struct budget_counts *c, uint64_t seed);
uint64_t big_alloc(struct budget_counts *c, uint64_t seed);

int main(int argc, char **argv)
{
	struct budget_counts small = {}, big = {};
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	uint64_t checksum = 0;

	for (int i = 0; i < rounds; i++) {
		checksum = checksum * 1000003 ^ small_alloc(&small, i);
		checksum = checksum * 1000003 ^ big_alloc(&big, i);
	}
	printf("small malloc %ld calloc %ld realloc %ld free %ld\n", small.malloc, small.calloc,
	       small.realloc, small.free);
	printf("big malloc %ld calloc %ld realloc %ld free %ld\n", big.malloc, big.calloc,
	       big.realloc, big.free);
	printf("checksum %016" PRIx64 "\n", checksum);
	return 0;
}
