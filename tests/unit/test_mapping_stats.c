// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "mapping_stats.h"

TestSuite(mapping_stats);

/* A call of kind call that mapped bytes (unmapped, if negative) of anonymous memory. */
static struct os_move move_of(enum ht_os_call call, int64_t bytes)
{
	struct os_move m = { .call = call };

	m.change.bytes[MAP_KIND_ANON] = bytes;
	return m;
}

static void charge(struct mapping_stats *ms, enum ht_os_call call, int64_t bytes,
		   const struct stack_frame *frames, size_t nr)
{
	struct os_move m = move_of(call, bytes);

	cr_assert(eq(int, mapping_stats__charge(ms, &(struct os_charge){
		.move = &m, .tid = 7, .thread_name = "t", .library = "/lib/libc.so.6",
		.function = "f", .frames = frames, .nr_frames = nr, .complete = true }), 0));
}

static const struct map_group *nth_stack(const struct mapping_stats *ms, size_t n)
{
	const struct map_group *g, *tmp;

	HASH_ITER(hh, ms->groups, g, tmp) {
		if (g->kind == MAP_GROUP_STACK && n-- == 0)
			return g;
	}
	return NULL;
}

/* Same names, other strings, offsets and lines: one stack; another call kind: another. */
Test(mapping_stats, a_stack_per_call_kind_and_named_frames)
{
	char lib_copy[] = "/app";
	struct stack_frame a[] = { { .library = "/lib/libc.so.6", .function = "mmap" },
				   { .library = "/app", .function = "grow", .offset = 10 } };
	struct stack_frame b[] = { { .library = "/lib/libc.so.6", .function = "mmap" },
				   { .library = lib_copy, .function = "grow", .offset = 99,
				     .line = 12 } };
	struct stack_frame c[] = { { .library = "/lib/libc.so.6", .function = "munmap" },
				   { .library = "/app", .function = "grow" } };
	struct mapping_stats ms = {};
	const struct map_group *first, *second;

	charge(&ms, HT_OS_MMAP, 8192, a, 2);
	charge(&ms, HT_OS_MMAP, 4096, b, 2);
	charge(&ms, HT_OS_MUNMAP, -8192, c, 2);
	charge(&ms, HT_OS_MMAP, 4096, NULL, 0); /* no stack known: no stack's figures */
	mapping_stats__sort(&ms);
	cr_assert(eq(sz, ms.nr_stacks, 2));
	first = nth_stack(&ms, 0);
	second = nth_stack(&ms, 1);
	cr_assert(first && second);
	cr_expect(eq(int, first->call, HT_OS_MMAP));
	cr_expect(eq(i64, first->bal.current, 12288));
	cr_expect(eq(i64, first->bal.max, 12288));
	cr_expect(eq(u64, first->bal.calls[HT_OS_MMAP], 2));
	cr_expect(eq(sz, first->nr_frames, 2));
	cr_expect(eq(str, (char *)first->frames[1].function, "grow"));
	cr_expect(eq(int, second->call, HT_OS_MUNMAP));
	cr_expect(eq(i64, second->bal.current, -8192));
	cr_expect(eq(i64, second->bal.min, -8192));
	/* The process's and the function's figures count every call, stack or none. */
	cr_expect(eq(i64, ms.total.current, 8192));
	cr_expect(eq(u64, ms.total.calls[HT_OS_MMAP], 3));
	mapping_stats__clear(&ms);
}
