// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <sys/mman.h>
#include "address_ranges.h"
#include "os_move.h"

TestSuite(address_ranges);

#define PAGE 4096ULL
#define BASE 0x100000ULL

static struct range_change map(struct address_ranges *ar, uint64_t start, uint64_t len,
			       enum map_kind kind, bool before_tracing)
{
	struct range_change c = {};

	cr_assert(eq(int, address_ranges__map(ar, &(struct range_piece){
		.start = start, .end = start + len, .kind = kind,
		.before_tracing = before_tracing }, &c), 0));
	return c;
}

static struct range_change unmap(struct address_ranges *ar, uint64_t start, uint64_t len)
{
	struct range_change c = {};

	cr_assert(eq(int, address_ranges__unmap(ar, start, len, &c), 0));
	return c;
}

Test(address_ranges, a_hole_in_the_middle_and_the_tail)
{
	struct address_ranges ar = {};
	struct range_change c;

	map(&ar, BASE, 16 * PAGE, MAP_KIND_ANON, false);
	c = unmap(&ar, BASE + 4 * PAGE, 4 * PAGE);
	cr_assert(eq(i64, range_change_total(&c), -4 * (int64_t)PAGE));
	cr_assert(eq(sz, ar.nr, 2));
	/* Over the hole and the piece after it: only what was mapped. */
	c = unmap(&ar, BASE + 4 * PAGE, 8 * PAGE);
	cr_assert(eq(i64, c.bytes[MAP_KIND_ANON], -4 * (int64_t)PAGE));
	/* Nothing there any more. */
	c = unmap(&ar, BASE + 4 * PAGE, 8 * PAGE);
	cr_assert(eq(i64, range_change_total(&c), 0));
	cr_assert(eq(u64, c.before_tracing, 0));
	cr_assert(eq(u64, address_ranges__bytes(&ar), 8 * PAGE));
	address_ranges__clear(&ar);
}

Test(address_ranges, before_tracing_is_counted_apart_and_replacing_it_is_not_unmapping)
{
	struct address_ranges ar = {};
	struct range_change c;

	map(&ar, BASE, 8 * PAGE, MAP_KIND_FILE, true);
	c = unmap(&ar, BASE + 6 * PAGE, 4 * PAGE); /* 2 pages of it, 2 never mapped */
	cr_assert(eq(i64, range_change_total(&c), 0));
	cr_assert(eq(u64, c.before_tracing, 2 * PAGE));
	/* MAP_FIXED over it: the new mapping is charged, the old one just replaced. */
	c = map(&ar, BASE, 4 * PAGE, MAP_KIND_ANON, false);
	cr_assert(eq(i64, c.bytes[MAP_KIND_ANON], 4 * (int64_t)PAGE));
	cr_assert(eq(i64, c.bytes[MAP_KIND_FILE], 0));
	cr_assert(eq(u64, c.before_tracing, 0));
	address_ranges__clear(&ar);
}

Test(address_ranges, remap_grows_shrinks_and_moves_piece_by_piece)
{
	struct address_ranges ar = {};
	struct range_change c = {};

	/* A mapping half before tracing, half traced (pieces in that order). */
	map(&ar, BASE, 4 * PAGE, MAP_KIND_FILE, true);
	map(&ar, BASE + 4 * PAGE, 4 * PAGE, MAP_KIND_ANON, false);
	/* Moved and grown: the traced half moves, the growth is new (kind of the last). */
	cr_assert(eq(int, address_ranges__remap(&ar, BASE, 8 * PAGE, 2 * BASE, 10 * PAGE, false,
						 false, false, &c), 0));
	cr_assert(eq(i64, c.bytes[MAP_KIND_ANON], 2 * (int64_t)PAGE));
	cr_assert(eq(i64, c.bytes[MAP_KIND_FILE], 0));
	cr_assert(eq(u64, c.before_tracing, 0), "moved, not unmapped");
	cr_assert(eq(u64, address_ranges__bytes(&ar), 10 * PAGE));
	/* Shrunk to its first 2 pages: 2 before-tracing pages and 6 traced ones go. */
	c = (struct range_change){};
	cr_assert(eq(int, address_ranges__remap(&ar, 2 * BASE, 10 * PAGE, 2 * BASE, 2 * PAGE,
						 false, false, false, &c), 0));
	cr_assert(eq(i64, range_change_total(&c), -6 * (int64_t)PAGE));
	cr_assert(eq(u64, c.before_tracing, 2 * PAGE));
	cr_assert(eq(u64, address_ranges__bytes(&ar), 2 * PAGE));
	address_ranges__clear(&ar);
}

Test(address_ranges, os_moves_round_to_pages_and_failed_calls_move_nothing)
{
	struct address_ranges ar = {};
	struct ht_os_event ev = { .call = HT_OS_MMAP, .ret = BASE, .flags = HT_F_IN_ALLOCATOR };
	struct os_move m;

	ev.args[1] = PAGE + 1;
	ev.args[3] = MAP_PRIVATE | MAP_ANONYMOUS;
	cr_assert(eq(int, os_move_of(&ar, &ev, PAGE, false, &m), 0));
	cr_assert(eq(i64, m.change.bytes[MAP_KIND_ANON], 2 * (int64_t)PAGE));
	cr_assert(eq(i64, m.change.heap, 2 * (int64_t)PAGE), "made inside malloc");

	ev = (struct ht_os_event){ .call = HT_OS_MUNMAP, .ret = -22 };
	ev.args[0] = BASE;
	ev.args[1] = 2 * PAGE;
	cr_assert(eq(int, os_move_of(&ar, &ev, PAGE, false, &m), 0));
	cr_assert(eq(i64, range_change_total(&m.change), 0), "EINVAL: nothing unmapped");
	ev.ret = 0;
	cr_assert(eq(int, os_move_of(&ar, &ev, PAGE, false, &m), 0));
	cr_assert(eq(i64, m.change.heap, -2 * (int64_t)PAGE), "malloc's own, unmapped");

	ev = (struct ht_os_event){ .call = HT_OS_BRK, .ret = BASE + 3 * PAGE, .old_brk = BASE };
	cr_assert(eq(int, os_move_of(&ar, &ev, PAGE, false, &m), 0));
	cr_assert(eq(i64, m.change.bytes[MAP_KIND_BRK], 3 * (int64_t)PAGE));
	ev.ret = BASE; /* a failed brk returns the old break */
	cr_assert(eq(int, os_move_of(&ar, &ev, PAGE, false, &m), 0));
	cr_assert(eq(i64, range_change_total(&m.change), 0));

	ev = (struct ht_os_event){ .call = HT_OS_MADVISE, .ret = 0 };
	ev.args[1] = 3 * PAGE - 5;
	cr_assert(eq(int, os_move_of(&ar, &ev, PAGE, false, &m), 0));
	cr_assert(eq(u64, m.released, 3 * PAGE));
	cr_assert(eq(i64, range_change_total(&m.change), 0), "madvise keeps the mapping");
	address_ranges__clear(&ar);
}
