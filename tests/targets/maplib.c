// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdlib.h>
#include <sys/mman.h>
#include "maplib.h"

static void *checked(void *p)
{
	if (p == MAP_FAILED)
		abort();
	return p;
}

void *lib_map_anon(size_t len)
{
	return checked(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
}

void *lib_map_file(int fd, size_t len)
{
	return checked(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
}

void lib_unmap(void *addr, size_t len)
{
	if (munmap(addr, len))
		abort();
}

void *lib_remap(void *addr, size_t old_len, size_t new_len)
{
	return checked(mremap(addr, old_len, new_len, MREMAP_MAYMOVE));
}
