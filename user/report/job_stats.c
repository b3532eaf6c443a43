// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "job_stats.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int64_t job_median(int64_t *values, size_t n)
{
	if (!n)
		return 0;
	qsort(values, n, sizeof(*values), cmp_i64);
	if (n % 2)
		return values[n / 2];
	/* Halves first: the sum of two large figures could overflow. */
	return values[n / 2 - 1] / 2 + values[n / 2] / 2 +
	       (values[n / 2 - 1] % 2 + values[n / 2] % 2) / 2;
}

/* |a - b| without overflow for the byte counts heaptap sees (below 2^62). */
static int64_t distance(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

int64_t job_mad(const int64_t *values, size_t n, int64_t median)
{
	int64_t *d = malloc((n ? n : 1) * sizeof(*d)), mad;

	if (!d)
		return -1;
	for (size_t i = 0; i < n; i++)
		d[i] = distance(values[i], median);
	mad = job_median(d, n);
	free(d);
	return mad;
}

int job_stat_of(const int64_t *values, const int *ranks, size_t n, struct job_stat *out)
{
	int64_t *sorted = malloc((n ? n : 1) * sizeof(*sorted));

	memset(out, 0, sizeof(*out));
	out->rank_of_min = out->rank_of_max = -1;
	if (!sorted)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		sorted[i] = values[i];
		if (!i || values[i] < out->min ||
		    (values[i] == out->min && ranks[i] < out->rank_of_min)) {
			out->min = values[i];
			out->rank_of_min = ranks[i];
		}
		if (!i || values[i] > out->max ||
		    (values[i] == out->max && ranks[i] < out->rank_of_max)) {
			out->max = values[i];
			out->rank_of_max = ranks[i];
		}
	}
	out->median = job_median(sorted, n);
	free(sorted);
	return 0;
}

int job_outliers(const int64_t *values, size_t n, bool *is_outlier, int64_t *median_out,
		 int64_t *mad_out)
{
	int64_t *sorted = malloc((n ? n : 1) * sizeof(*sorted)), median, mad;
	int count = 0;

	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, values, n * sizeof(*values));
	median = job_median(sorted, n);
	free(sorted);
	if ((mad = job_mad(values, n, median)) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		double above = (double)values[i] - (double)median;

		is_outlier[i] = above > 0 && 0.6745 * above > JOB_OUTLIER_Z * (double)mad &&
				above > JOB_OUTLIER_MIN_RATIO * (median > 0 ? (double)median : 0.0);
		count += is_outlier[i];
	}
	if (median_out)
		*median_out = median;
	if (mad_out)
		*mad_out = mad;
	return count;
}
