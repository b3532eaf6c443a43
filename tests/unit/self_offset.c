// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "procmaps.h"
#include "self_offset.h"

uint64_t file_offset(const void *addr)
{
	struct procmaps pm;
	const struct mapping *m;
	uint64_t off;

	cr_assert(eq(int, procmaps__read(getpid(), &pm), 0));
	m = procmaps__find(&pm, (uint64_t)(uintptr_t)addr);
	cr_assert(m != NULL);
	off = (uint64_t)(uintptr_t)addr - m->start + m->offset;
	procmaps__clear(&pm);
	return off;
}
