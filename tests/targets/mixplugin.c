// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A library the checksum targets load and unload at every step: each dlopen and dlclose
 * is a loader event, and its code allocates, from its constructor on.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Exported, so that the compiler keeps the constructor's allocation. */
void *mix_ctor_block;

__attribute__((constructor)) static void mix_ctor(void)
{
	mix_ctor_block = malloc(96);
}

__attribute__((destructor)) static void mix_dtor(void)
{
	free(mix_ctor_block);
	mix_ctor_block = NULL;
}

/* splitmix64 of h ^ v, through a heap buffer so that the library allocates. */
uint64_t mix(uint64_t h, uint64_t v)
{
	uint64_t *scratch = malloc(4 * sizeof(*scratch)), z;

	if (!scratch)
		return 0;
	scratch[0] = h ^ v;
	scratch[1] = 0x9e3779b97f4a7c15ull;
	z = scratch[0] + scratch[1];
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	scratch[2] = z ^ (z >> 31);
	memcpy(&z, &scratch[2], sizeof(z));
	free(scratch);
	return z;
}
