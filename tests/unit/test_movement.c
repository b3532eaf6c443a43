// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdint.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "movement.h"

TestSuite(movement);

static struct ht_call_event ev(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t ptr,
			       uint64_t got, uint64_t freed)
{
	return (struct ht_call_event){ .args = { a0, a1, a2 }, .alloc_ptr = ptr,
				       .alloc_usable = got, .freed_usable = freed };
}

Test(movement, malloc_moves_usable_and_requests_its_size)
{
	struct ht_call_event e = ev(20, 0, 0, 0x1000, 24, 0);
	struct movement m = movement_of(&e, HT_MALLOC, true);

	cr_assert(eq(i64, m.delta, 24));
	cr_assert(eq(u64, m.requested, 20));
}

Test(movement, a_failed_malloc_moves_nothing)
{
	struct ht_call_event e = ev(SIZE_MAX, 0, 0, 0, 0, 0);
	struct movement m = movement_of(&e, HT_MALLOC, true);

	cr_assert(eq(i64, m.delta, 0));
	cr_assert(eq(u64, m.requested, 0));
}

Test(movement, calloc_requests_the_product)
{
	struct ht_call_event e = ev(10, 12, 0, 0x1000, 120, 0);

	cr_assert(eq(u64, movement_of(&e, HT_CALLOC, true).requested, 120));
}

Test(movement, realloc_moves_the_difference)
{
	struct ht_call_event e = ev(0x1000, 100, 0, 0x2000, 104, 40);
	struct movement m = movement_of(&e, HT_REALLOC, true);

	cr_assert(eq(i64, m.delta, 64));
	cr_assert(eq(u64, m.requested, 100));
}

Test(movement, realloc_to_zero_frees)
{
	struct ht_call_event e = ev(0x1000, 0, 0, 0, 0, 40);

	cr_assert(eq(i64, movement_of(&e, HT_REALLOC, true).delta, -40));
}

Test(movement, a_failed_realloc_keeps_the_old_block)
{
	struct ht_call_event e = ev(0x1000, SIZE_MAX, 0, 0, 0, 40);

	cr_assert(eq(i64, movement_of(&e, HT_REALLOC, true).delta, 0));
}

Test(movement, reallocarray_overflow_fails_without_freeing)
{
	struct ht_call_event e = ev(0x1000, SIZE_MAX, 2, 0, 0, 40);

	cr_assert(eq(i64, movement_of(&e, HT_REALLOCARRAY, true).delta, 0));
}

Test(movement, free_releases_and_free_null_moves_nothing)
{
	struct ht_call_event e = ev(0x1000, 0, 0, 0, 0, 40), null = ev(0, 0, 0, 0, 0, 0);

	cr_assert(eq(i64, movement_of(&e, HT_FREE, true).delta, -40));
	cr_assert(eq(i64, movement_of(&null, HT_FREE, true).delta, 0));
}

Test(movement, posix_memalign_requests_its_third_argument)
{
	struct ht_call_event e = ev(0x7ff0, 64, 1000, 0x4000, 1016, 0);
	struct movement m = movement_of(&e, HT_POSIX_MEMALIGN, true);

	cr_assert(eq(i64, m.delta, 1016));
	cr_assert(eq(u64, m.requested, 1000));
}

Test(movement, unknown_block_sizes_count_requested_bytes)
{
	struct ht_call_event e = ev(20, 0, 0, 0x1000, 9999, 0);

	cr_assert(eq(i64, movement_of(&e, HT_MALLOC, false).delta, 20));
}

Test(movement, blocks_released_and_returned)
{
	struct ht_call_event e = ev(0x1000, 64, 0, 0x2000, 72, 40);
	struct movement m = movement_of(&e, HT_REALLOC, true);

	cr_assert(eq(u64, m.released, 0x1000));
	cr_assert(eq(u64, m.returned, 0x2000));
	e = ev(0x1000, 0, 0, 0, 0, 40);
	m = movement_of(&e, HT_REALLOC, true);
	cr_assert(eq(u64, m.released, 0x1000), "realloc(p, 0) releases p");
	cr_assert(eq(u64, m.returned, 0));
	e = ev(0x1000, 1 << 20, 0, 0, 0, 40);
	m = movement_of(&e, HT_REALLOC, true);
	cr_assert(eq(u64, m.released, 0), "a failed realloc keeps p");
	e = ev(0x1000, 0, 0, 0, 0, 40);
	cr_assert(eq(u64, movement_of(&e, HT_FREE, true).released, 0x1000));
	e = ev(SIZE_MAX, 16, 0, 0, 0, 0);
	m = movement_of(&e, HT_CALLOC, true);
	cr_assert(eq(u64, m.returned, 0), "calloc overflow returns no block");
	e = ev(0x7fff0000, 64, 100, 0x3000, 112, 0);
	cr_assert(eq(u64, movement_of(&e, HT_POSIX_MEMALIGN, true).returned, 0x3000));
}
