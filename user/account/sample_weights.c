// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <math.h>
#include "sample_weights.h"

/* The middle size of a bucket (sizes 0..3 are their own buckets; 0 counts as 1). */
static double middle(uint32_t bucket)
{
	uint32_t msb = bucket / 4, sub = bucket % 4;

	if (bucket < 4)
		return bucket ? bucket : 1;
	return ldexp(1.0, (int)msb) + ((double)sub + 0.5) * ldexp(1.0, (int)msb - 2);
}

uint64_t sample_threshold(uint64_t sample_bytes, uint32_t bucket)
{
	double p = -expm1(-middle(bucket) / (double)sample_bytes);
	double t = nearbyint(p * 4294967296.0);

	if (t < 1)
		return 1;
	return t >= 4294967296.0 ? HT_SAMPLE_ALWAYS : (uint64_t)t;
}

double sample_weight(uint64_t sample_bytes, uint64_t size)
{
	uint32_t bucket = ht_sample_bucket(size) & (HT_SAMPLE_BUCKETS - 1);

	return 4294967296.0 / (double)sample_threshold(sample_bytes, bucket);
}

/* splitmix64's finaliser: a key to a uniform 64-bit number. */
static uint64_t mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t sample_scale(uint64_t bytes, double weight, uint64_t key)
{
	double x = (double)bytes * weight;
	double whole = floor(x);

	return (uint64_t)whole + ((double)(mix(key) >> 11) * 0x1p-53 < x - whole);
}
