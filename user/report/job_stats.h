/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Figures across the ranks of a job: min, median and max with the ranks that hold the
 * extremes, and the ranks far above the others (outliers, by the median absolute
 * deviation).
 */
#ifndef HEAPTAP_JOB_STATS_H
#define HEAPTAP_JOB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Outliers: a rank whose value v lies more than JOB_OUTLIER_Z robust deviations above the
 * median m, that is 0.6745 * (v - m) / MAD > 3.5 (Iglewicz and Hoaglin's modified z-score),
 * and more than JOB_OUTLIER_MIN_RATIO above m (ranks nearly equal, MAD 0, are not told
 * apart by a few bytes). MAD: the median of |v - m| over the ranks.
 */
#define JOB_OUTLIER_Z 3.5
#define JOB_OUTLIER_MIN_RATIO 0.10

struct job_stat {
	int64_t min, median, max;
	int rank_of_min, rank_of_max; /* the lowest rank among equals */
};

/*
 * The median of n values (sorted in place): the middle one; of an even count, the mean of
 * the two middle ones, rounded toward zero. 0 when n is 0.
 */
int64_t job_median(int64_t *values, size_t n);
/* The median absolute deviation of n values from median. 0, or -ENOMEM as -1. */
int64_t job_mad(const int64_t *values, size_t n, int64_t median);
/*
 * values[i] is rank ranks[i]'s: min, median, max and the ranks of the extremes into out.
 * 0 or -ENOMEM.
 */
int job_stat_of(const int64_t *values, const int *ranks, size_t n, struct job_stat *out);
/*
 * Which values are outliers (above, see JOB_OUTLIER_Z): is_outlier[i] set for each; their
 * number, or -ENOMEM. *median and *mad (either may be NULL) get the figures used.
 */
int job_outliers(const int64_t *values, size_t n, bool *is_outlier, int64_t *median,
		 int64_t *mad);

#endif
