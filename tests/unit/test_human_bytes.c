// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The text report's sizes (binary units, one decimal; --bytes: exact) and counts (1,234). */
#include <stdint.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "human_bytes.h"

TestSuite(human_bytes);

Test(human_bytes, sizes_in_binary_units)
{
	char buf[32];

	cr_expect(eq(str, (char *)size_text(0, false, buf, sizeof(buf)), "0 B"));
	cr_expect(eq(str, (char *)size_text(280, false, buf, sizeof(buf)), "280 B"));
	cr_expect(eq(str, (char *)size_text(1023, false, buf, sizeof(buf)), "1023 B"));
	cr_expect(eq(str, (char *)size_text(1024, false, buf, sizeof(buf)), "1.0 KiB"));
	/* The demo's peak: 2,821,184 bytes. */
	cr_expect(eq(str, (char *)size_text(2821184, false, buf, sizeof(buf)), "2.7 MiB"));
	cr_expect(eq(str, (char *)size_text(3LL << 30, false, buf, sizeof(buf)), "3.0 GiB"));
	/* A group that freed what others allocated. */
	cr_expect(eq(str, (char *)size_text(-57344, false, buf, sizeof(buf)), "-56.0 KiB"));
	cr_expect(eq(str, (char *)size_text(-5, false, buf, sizeof(buf)), "-5 B"));
}

Test(human_bytes, exact_sizes_with_bytes)
{
	char buf[32];

	cr_expect(eq(str, (char *)size_text(2821184, true, buf, sizeof(buf)), "2821184"));
	cr_expect(eq(str, (char *)size_text(-57344, true, buf, sizeof(buf)), "-57344"));
	cr_expect(eq(str, (char *)size_text(INT64_MAX, true, buf, sizeof(buf)),
		     "9223372036854775807"));
}

Test(human_bytes, counts_grouped_by_thousands)
{
	char buf[32], small[4];

	cr_expect(eq(str, (char *)grouped_count(0, buf, sizeof(buf)), "0"));
	cr_expect(eq(str, (char *)grouped_count(999, buf, sizeof(buf)), "999"));
	cr_expect(eq(str, (char *)grouped_count(1000, buf, sizeof(buf)), "1,000"));
	cr_expect(eq(str, (char *)grouped_count(60001, buf, sizeof(buf)), "60,001"));
	cr_expect(eq(str, (char *)grouped_count(1234567, buf, sizeof(buf)), "1,234,567"));
	cr_expect(eq(str, (char *)grouped_count(UINT64_MAX, buf, sizeof(buf)),
		     "18,446,744,073,709,551,615"));
	/* A short buffer is cut, still a string. */
	cr_expect(eq(str, (char *)grouped_count(123456, small, sizeof(small)), "123"));
}
