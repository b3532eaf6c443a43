// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Loads each library named on its command line (libhostile.so and its crafted copies),
 * has it work, and prints what it computed and the allocator calls each one made:
 *   PATH malloc N calloc N realloc N free N
 *   checksum X
 * The output is the same whether heaptap traces it or not.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include "hostile.h"

#define ROUNDS 50

int main(int argc, char **argv)
{
	uint64_t checksum = 0;

	for (int i = 1; i < argc; i++) {
		/* Never closed: its mapping stays for heaptap to read. */
		void *lib = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
		uint64_t (*work)(struct hostile_counts *, uint64_t, int);
		struct hostile_counts c = {};

		if (!lib || !(work = (uint64_t(*)(struct hostile_counts *, uint64_t, int))dlsym(
				      lib, "hostile_work"))) {
			fprintf(stderr, "hostile: %s\n", dlerror());
			return 1;
		}
		checksum = checksum * 1000003 ^ work(&c, i, ROUNDS);
		printf("%s malloc %ld calloc %ld realloc %ld free %ld\n", argv[i], c.malloc,
		       c.calloc, c.realloc, c.free);
	}
	printf("checksum %016" PRIx64 "\n", checksum);
	return 0;
}
