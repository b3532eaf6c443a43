// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * --sample-bytes' buckets and weights: a size's bucket holds it, the weight is the inverse
 * of the probability the threshold draws with, and the estimates' rounding adds no bias.
 */
#include <math.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "live_blocks.h"
#include "sample_weights.h"

TestSuite(sample_weights);

/* The sizes a bucket holds, from its number: sizes 0..3 their own; then 4 per octave. */
static void bucket_range(uint32_t b, double *lo, double *hi)
{
	uint32_t msb = b / 4, sub = b % 4;

	if (b < 4) {
		*lo = b;
		*hi = b + 1;
		return;
	}
	*lo = ldexp(1, (int)msb) + sub * ldexp(1, (int)msb - 2);
	*hi = *lo + ldexp(1, (int)msb - 2);
}

Test(sample_weights, a_bucket_holds_its_sizes)
{
	static const uint64_t sizes[] = { 0, 1, 3, 4, 5, 7, 8, 63, 64, 65, 100, 4095, 4096,
					  65535, 1 << 20, 123456789, 1ull << 40, (1ull << 63) + 5 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t b = ht_sample_bucket(sizes[i]);
		double lo, hi;

		cr_assert(lt(u32, b, HT_SAMPLE_BUCKETS), "size %llu",
			  (unsigned long long)sizes[i]);
		bool within;

		bucket_range(b, &lo, &hi);
		within = (double)sizes[i] >= lo && (double)sizes[i] < hi;
		cr_expect(within, "size %llu bucket %u", (unsigned long long)sizes[i], b);
	}
}

Test(sample_weights, weight_is_the_inverse_of_the_draw)
{
	const uint64_t r = 512 << 10;

	for (uint32_t b = 0; b < HT_SAMPLE_BUCKETS; b++) {
		uint64_t t = sample_threshold(r, b);
		double lo, hi, p;
		bool between;

		cr_assert(t >= 1 && t <= HT_SAMPLE_ALWAYS);
		if (b >= 4 && b < 8)
			continue; /* no size falls there */
		bucket_range(b, &lo, &hi);
		/* Any size of the bucket: the same weight, the inverse of t / 2^32. */
		cr_expect(eq(dbl, sample_weight(r, (uint64_t)lo), 4294967296.0 / (double)t));
		/* p of the bucket lies between p of its ends. */
		p = (double)t / 4294967296.0;
		between = p <= -expm1(-hi / (double)r) + 1e-9 &&
			  p >= -expm1(-fmax(lo, 1) / (double)r) - 1e-9;
		cr_expect(between, "bucket %u", b);
	}
	/* Sizes far above R: always drawn, weight 1. */
	cr_expect(eq(dbl, sample_weight(r, 64ull << 20), 1.0));
}

Test(sample_weights, rounding_has_no_bias)
{
	double sum = 0, want = 0;

	for (uint32_t i = 0; i < 100000; i++) {
		bool either;
		struct live_block b = { .usable = 40 + i % 50, .requested = 33 + i % 50,
					.tid = 7 + i, .when = i / 1000, .weight = 2.3f };

		sum += (double)live_block__blocks(&b);
		want += 2.3f;
		either = live_block__blocks(&b) == 2 || live_block__blocks(&b) == 3;
		cr_assert(either);
	}
	bool close = fabs(sum - want) < 0.01 * want;

	cr_expect(close, "%.0f blocks for %.0f", sum, want);
}
