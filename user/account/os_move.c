// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include "os_move.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

/* A system call's error return: -4095..-1. */
static bool failed(uint64_t ret)
{
	return ret >= (uint64_t)-4095;
}

static uint64_t pages(uint64_t len, uint64_t page_size)
{
	return (len + page_size - 1) & ~(page_size - 1);
}

int os_move_of(struct address_ranges *ar, const struct ht_os_event *ev, uint64_t page_size,
	       bool uncharged, struct os_move *out)
{
	bool heap = ev->flags & HT_F_IN_ALLOCATOR;
	const __u64 *a = ev->args;

	memset(out, 0, sizeof(*out));
	out->call = ev->call;
	switch (ev->call) {
	case HT_OS_MMAP:
		if (failed(ev->ret))
			return 0;
		return address_ranges__map(ar, &(struct range_piece){
			.start = ev->ret,
			.end = ev->ret + pages(a[1], page_size),
			.kind = (a[3] & MAP_ANONYMOUS) ? MAP_KIND_ANON : MAP_KIND_FILE,
			.heap = heap,
			.before_tracing = uncharged,
		}, &out->change);
	case HT_OS_MUNMAP:
		if (ev->ret != 0)
			return 0;
		return address_ranges__unmap(ar, a[0], pages(a[1], page_size), &out->change);
	case HT_OS_MREMAP:
		if (failed(ev->ret))
			return 0;
		return address_ranges__remap(ar, a[0], pages(a[1], page_size), ev->ret,
					     pages(a[2], page_size), heap,
					     (a[3] & MREMAP_DONTUNMAP) || a[1] == 0, uncharged,
					     &out->change);
	case HT_OS_BRK:
		/* brk returns the new break, the old one when it fails; 0: not read at entry. */
		if (!ev->old_brk || uncharged)
			return 0;
		out->change.bytes[MAP_KIND_BRK] = (int64_t)(ev->ret - ev->old_brk);
		if (heap)
			out->change.heap = out->change.bytes[MAP_KIND_BRK];
		return 0;
	case HT_OS_MADVISE:
		if (ev->ret == 0)
			out->released = pages(a[1], page_size);
		return 0;
	}
	return 0;
}
