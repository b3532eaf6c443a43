// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "compare.h"

TestSuite(compare);

Test(compare, a_linear_series_fits_exactly)
{
	double p[] = { 1, 2, 4, 8 }, y[] = { 1040, 1080, 1160, 1320 };
	struct linear_fit f;

	cr_assert(eq(int, linear_fit(p, y, 4, &f), 0));
	cr_assert(eq(dbl, f.b, 40.0));
	cr_assert(eq(dbl, f.a, 1000.0));
	cr_assert(eq(dbl, f.r2, 1.0));
}

Test(compare, a_constant_has_no_slope)
{
	double p[] = { 1, 2, 4 }, y[] = { 616, 616, 616 };
	struct linear_fit f;

	cr_assert(eq(int, linear_fit(p, y, 3, &f), 0));
	cr_assert(eq(dbl, f.b, 0.0));
	cr_assert(eq(dbl, f.r2, 1.0));
}

Test(compare, a_square_fits_a_line_less_well)
{
	/* y = p^2 at 1, 2, 4: b = 24 / (42/9) = 36/7, R^2 = b * 24 / 126. */
	double p[] = { 1, 2, 4 }, y[] = { 1, 4, 16 };
	struct linear_fit f;

	cr_assert(eq(int, linear_fit(p, y, 3, &f), 0));
	cr_assert(__builtin_fabs(f.b - 36.0 / 7) < 1e-12, "b %.17g", f.b);
	cr_assert(__builtin_fabs(f.r2 - 36.0 / 7 * 24 / 126) < 1e-12, "R^2 %.17g", f.r2);
	cr_assert(f.r2 < 1);
}

Test(compare, one_process_count_is_no_line)
{
	double p[] = { 4, 4 }, y[] = { 1, 2 };
	struct linear_fit f;

	cr_assert(eq(int, linear_fit(p, y, 2, &f), -EINVAL));
	cr_assert(eq(int, linear_fit(p, y, 1, &f), -EINVAL));
}

Test(compare, median_of_odd_and_even_counts)
{
	double odd[] = { 9, 1, 5 }, even[] = { 8, 2, 4, 6 };

	cr_assert(eq(dbl, median(odd, 3), 5.0));
	cr_assert(eq(dbl, median(even, 4), 5.0));
	cr_assert(eq(dbl, odd[0], 1.0), "sorted in place");
}
