// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * unwind_cost FILE...: what building each file's unwind table costs heaptap, rows, BPF
 * map memory and time, then the total.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "unwind_table.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	size_t rows = 0;
	double total_ms = 0;

	for (int i = 1; i < argc; i++) {
		struct unwind_table t;
		double start = now_ms(), ms;
		int err = unwind_table__build(argv[i], &t);

		ms = now_ms() - start;
		if (err) {
			fprintf(stderr, "unwind_cost: %s: %s\n", argv[i], strerror(-err));
			return 1;
		}
		printf("  %-54s %7zu rows %8.1f KiB %6.1f ms\n", argv[i], t.nr,
		       t.nr * sizeof(struct ht_unwind_row) / 1024.0, ms);
		rows += t.nr;
		total_ms += ms;
		unwind_table__clear(&t);
	}
	printf("unwind tables: %zu rows, %.2f MiB, %.0f ms (target: under 300 ms, a few MB)\n",
	       rows, rows * sizeof(struct ht_unwind_row) / 1048576.0, total_ms);
	return 0;
}
