// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * dlopens DIR/libmany_0.so .. DIR/libmany_<N-1>.so (copies of one library under distinct
 * names: distinct files), keeps them all mapped, has each allocate, and prints:
 *   many malloc N calloc N realloc N free N
 *   checksum X
 *   maxrss KIB          (its own peak, for the test to tell it from heaptap's)
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include "budget.h"

int main(int argc, char **argv)
{
	struct budget_counts c = {};
	uint64_t checksum = 0;
	struct rusage ru;
	int n;

	if (argc != 3 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: manylibs DIR N\n");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		uint64_t (*alloc)(struct budget_counts *, uint64_t);
		char path[4096];
		void *lib;

		snprintf(path, sizeof(path), "%s/libmany_%d.so", argv[1], i);
		/* Never closed: every copy stays mapped, as heaptap must cope with. */
		lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!lib || !(alloc = (uint64_t(*)(struct budget_counts *, uint64_t))dlsym(
				      lib, "many_alloc"))) {
			fprintf(stderr, "manylibs: %s\n", dlerror());
			return 1;
		}
		checksum = checksum * 1000003 ^ alloc(&c, i);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("many malloc %ld calloc %ld realloc %ld free %ld\n", c.malloc, c.calloc, c.realloc,
	       c.free);
	printf("checksum %016" PRIx64 "\n", checksum);
	printf("maxrss %ld\n", ru.ru_maxrss);
	return 0;
}
