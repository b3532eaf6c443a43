// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A process's total over time: every beat kept until full, then every other one. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "total_series.h"

TestSuite(total_series);

Test(total_series, every_beat_is_kept_then_the_last_one)
{
	struct total_series s = {};

	for (int i = 0; i < 5; i++)
		cr_assert(eq(int, total_series__add(&s, i, i * 10, i * 20, false), 0));
	cr_assert(eq(int, total_series__add(&s, 4.5, 7, 99, true), 0));
	cr_assert(eq(u32, s.nr, 6));
	cr_assert(eq(dbl, s.items[2].t, 2.0));
	cr_assert(eq(i64, s.items[2].current, 20));
	cr_assert(eq(i64, s.items[5].max, 99));
	total_series__clear(&s);
}

Test(total_series, the_last_sample_at_a_beats_time_replaces_it)
{
	struct total_series s = {};

	total_series__add(&s, 1, 10, 10, false);
	total_series__add(&s, 1, 5, 12, true);
	cr_assert(eq(u32, s.nr, 1));
	cr_assert(eq(i64, s.items[0].current, 5));
	total_series__clear(&s);
}

Test(total_series, a_full_series_keeps_its_span_at_half_the_beat)
{
	struct total_series s = {};
	int beats = 3 * TOTAL_SERIES_MAX;

	for (int i = 0; i < beats; i++)
		total_series__add(&s, i, i, i, false);
	total_series__add(&s, beats, -1, beats, true);
	cr_assert(s.nr <= TOTAL_SERIES_MAX);
	cr_assert(s.nr > TOTAL_SERIES_MAX / 2, "%u", s.nr);
	cr_assert(eq(dbl, s.items[s.nr - 1].t, (double)beats), "the end kept");
	cr_assert(s.items[0].t < 4, "the start kept: %f", s.items[0].t);
	for (uint32_t i = 1; i < s.nr; i++)
		cr_assert(s.items[i].t > s.items[i - 1].t, "in time order");
	total_series__clear(&s);
}
