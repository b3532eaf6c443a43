/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --sample-bytes R: the probability each size bucket is drawn with (include/heaptap.h), as
 * the BPF side's thresholds and as the weights the estimates use.
 *
 * A bucket's p is p(m) = 1 - exp(-m/R) of its middle size m. The draw compares a 32-bit
 * random number with the threshold t = round(2^32 * p(m)), so a call of the bucket is
 * drawn with probability exactly t / 2^32; a sample is weighed by 2^32 / t, the inverse of
 * that probability, never of p(s) of its own size. Every estimate (a sum of weighed
 * samples) is then unbiased whatever m stands for the bucket; m only sets its variance,
 * which p(s) of the exact size would minimise: within a bucket (a quarter of an octave)
 * the two differ by under 25%.
 */
#ifndef HEAPTAP_SAMPLE_WEIGHTS_H
#define HEAPTAP_SAMPLE_WEIGHTS_H

#include <stdint.h>
#include "heaptap_types.h"

/* The threshold of a bucket at R bytes (R > 0): 1 .. HT_SAMPLE_ALWAYS. */
uint64_t sample_threshold(uint64_t sample_bytes, uint32_t bucket);
/* The weight 1/p of a sample of size bytes (the size the draw used, ht_sample_size). */
double sample_weight(uint64_t sample_bytes, uint64_t size);
/*
 * bytes * weight as an integer, rounded up or down at random (by key, deterministically)
 * so that the rounding adds no bias.
 */
uint64_t sample_scale(uint64_t bytes, double weight, uint64_t key);

#endif
