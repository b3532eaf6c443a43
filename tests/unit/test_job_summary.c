// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The figures across ranks: median, MAD, outliers, and the summary built from a job. */
#include <errno.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "job_stats.h"
#include "job_summary.h"

TestSuite(job_stats);
TestSuite(job_summary);

Test(job_stats, the_median_of_an_odd_count_is_the_middle_value)
{
	int64_t v[] = { 9, -4, 7, 100, 1 };

	cr_assert(eq(i64, job_median(v, 5), 7));
}

Test(job_stats, the_median_of_an_even_count_is_the_mean_of_the_middle_two)
{
	int64_t v[] = { 10, 1, 4, 1000 }, odd[] = { 3, 4 }, big[] = { INT64_MAX - 1, INT64_MAX - 3 };

	cr_assert(eq(i64, job_median(v, 4), 7));
	cr_assert(eq(i64, job_median(odd, 2), 3)); /* 3.5 rounded toward zero */
	cr_assert(eq(i64, job_median(big, 2), INT64_MAX - 2), "no overflow");
	cr_assert(eq(i64, job_median(NULL, 0), 0));
}

Test(job_stats, the_mad_is_the_median_distance_from_the_median)
{
	/* Distances from 20: 10, 0, 5, 80, 2 -> sorted 0, 2, 5, 10, 80 -> 5. */
	int64_t v[] = { 10, 20, 25, 100, 18 };

	cr_assert(eq(i64, job_mad(v, 5, 20), 5));
}

Test(job_stats, extremes_name_the_lowest_rank_among_equals)
{
	int64_t v[] = { 5, 9, 1, 9, 1 };
	int ranks[] = { 4, 3, 2, 1, 0 };
	struct job_stat s;

	cr_assert(eq(int, job_stat_of(v, ranks, 5, &s), 0));
	cr_assert(eq(i64, s.min, 1));
	cr_assert(eq(int, s.rank_of_min, 0));
	cr_assert(eq(i64, s.max, 9));
	cr_assert(eq(int, s.rank_of_max, 1));
	cr_assert(eq(i64, s.median, 5));
}

Test(job_stats, a_rank_far_above_the_others_is_an_outlier)
{
	/* median 103, distances 3 1 0 2 897 3 -> MAD 2.5 -> 2: 0.6745 * 897 / 2 >> 3.5. */
	int64_t v[] = { 100, 104, 103, 105, 1000, 101 };
	bool out[6];
	int64_t median, mad;

	cr_assert(eq(int, job_outliers(v, 6, out, &median, &mad), 1));
	cr_assert(out[4]);
	cr_assert(not(out[0] || out[1] || out[2] || out[3] || out[5]));
	cr_assert(eq(i64, median, 103));
	cr_assert(eq(i64, mad, 2));
}

Test(job_stats, a_rank_below_the_others_is_not_an_outlier)
{
	int64_t v[] = { 1000, 1001, 1002, 1003, 1 };
	bool out[5];

	cr_assert(eq(int, job_outliers(v, 5, out, NULL, NULL), 0));
}

Test(job_stats, equal_ranks_are_not_told_apart_by_a_few_bytes)
{
	/* MAD 0: only a rank more than 10% above the median counts. */
	int64_t v[] = { 1000, 1000, 1000, 1050, 1000 }, w[] = { 1000, 1000, 1000, 1200, 1000 };
	bool out[5];

	cr_assert(eq(int, job_outliers(v, 5, out, NULL, NULL), 0));
	cr_assert(eq(int, job_outliers(w, 5, out, NULL, NULL), 1));
	cr_assert(out[3]);
}

Test(job_stats, a_steady_spread_has_no_outlier)
{
	int64_t v[] = { 400, 630, 870 };
	bool out[3];

	cr_assert(eq(int, job_outliers(v, 3, out, NULL, NULL), 0));
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	cr_assert(json_object_object_get_ex(o, key, &v), "no %s in %s", key,
		  json_object_to_json_string(o));
	return v;
}

static int64_t stat_of(json_object *o, const char *figure, const char *which)
{
	return json_object_get_int64(get(get(o, figure), which));
}

/* A job of four ranks (3, 1, 0, 2 in that order); f held by three of them. */
Test(job_summary, groups_across_ranks_count_a_missing_group_as_zero)
{
	struct job_group f[4] = {
		{ "/lib/liba.so", "f", { .current = 10, .max = 40, .calls = { 3, 0, 0, 0, 1 } } },
		{ "/lib/liba.so", "f", { .current = 20, .max = 90, .calls = { 5 } } },
		{ "/lib/liba.so", "f", { .current = 30, .max = 70, .calls = { 7 } } },
	};
	struct job_group g = { "/lib/libb.so", "g", { .current = 1, .max = 1000, .calls = { 1 } } };
	struct job_group lib = { "/lib/liba.so", NULL, { .current = 5, .max = 6 } };
	struct job_rank ranks[4] = {
		{ .rank = 3, .command = "app", .total = { .max = 500 }, .nr_functions = 1,
		  .functions = &f[0], .nr_libraries = 1, .libraries = &lib },
		{ .rank = 1, .command = "app", .total = { .max = 520 }, .nr_functions = 2,
		  .functions = (struct job_group[]){ f[1], g } },
		{ .rank = 0, .command = "app", .total = { .max = 510 }, .nr_functions = 1,
		  .functions = &f[2] },
		{ .rank = 2, .command = "app", .total = { .max = 9000 } },
	};
	struct job j = { .attribution = "entry", .mpi = true, .nr = 4, .ranks = ranks };
	json_object *sum = job_summary_build(&j, NULL), *fn, *top;

	cr_assert(sum != NULL);
	cr_assert(eq(int, json_object_get_int(get(sum, "heaptap_summary")), 1));
	cr_assert(eq(int, json_object_get_int(get(sum, "ranks")), 4));
	fn = get(sum, "functions");
	cr_assert(eq(sz, json_object_array_length(fn), 2));
	top = json_object_array_get_idx(fn, 0); /* g: the largest max */
	cr_assert(eq(str, (char *)json_object_get_string(get(top, "function")), "g"));
	cr_assert(eq(i64, stat_of(top, "max", "median"), 0), "three ranks without g");
	cr_assert(eq(int, (int)stat_of(top, "max", "rank_of_max"), 1));
	top = json_object_array_get_idx(fn, 1);
	/* f's max per rank: 40 (3), 90 (1), 70 (0), 0 (2): median (40 + 70) / 2. */
	cr_assert(eq(i64, stat_of(top, "max", "min"), 0));
	cr_assert(eq(int, (int)stat_of(top, "max", "rank_of_min"), 2));
	cr_assert(eq(i64, stat_of(top, "max", "median"), 55));
	cr_assert(eq(i64, stat_of(top, "max", "max"), 90));
	cr_assert(eq(int, (int)stat_of(top, "max", "rank_of_max"), 1));
	cr_assert(eq(i64, stat_of(top, "current", "max"), 30));
	cr_assert(eq(int, (int)stat_of(top, "current", "rank_of_max"), 0));
	cr_assert(eq(i64, stat_of(top, "calls", "max"), 7));
	cr_assert(eq(i64, stat_of(top, "calls", "median"), 4), "calls 4, 5, 7, 0");
	cr_assert(eq(int, json_object_get_int(get(top, "ranks")), 3));
	/* The total's peaks 500 520 510 9000: rank 2 stands out. */
	cr_assert(eq(sz, json_object_array_length(get(sum, "outliers")), 1));
	cr_assert(eq(int, json_object_get_int(get(json_object_array_get_idx(get(sum, "outliers"), 0),
						  "rank")), 2));
	cr_assert(eq(int, (int)stat_of(get(sum, "total"), "max", "rank_of_max"), 2));
	cr_assert(eq(i64, stat_of(get(sum, "total"), "max", "median"), 515));
	cr_assert(eq(sz, json_object_array_length(get(sum, "libraries")), 1));
	cr_assert(eq(sz, json_object_array_length(get(sum, "ranks_detail")), 4));
	cr_assert(not(json_object_object_get_ex(sum, "peaks", NULL)), "no owner view, no peaks");
	json_object_put(sum);
}

Test(job_summary, top_keeps_the_groups_of_largest_max)
{
	struct job_group fs[3] = {
		{ "l", "small", { .max = 1 } },
		{ "l", "big", { .max = 100 } },
		{ "l", "middle", { .max = 50 } },
	};
	struct job_rank r = { .rank = 0, .command = "app", .nr_functions = 3, .functions = fs };
	struct job j = { .attribution = "entry", .nr = 1, .ranks = &r };
	json_object *sum = job_summary_build(&j, &(struct job_summary_opts){ .top = 2 }), *fn;

	cr_assert(sum != NULL);
	fn = get(sum, "functions");
	cr_assert(eq(sz, json_object_array_length(fn), 2));
	cr_assert(eq(str, (char *)json_object_get_string(get(json_object_array_get_idx(fn, 0),
							       "function")), "big"));
	cr_assert(eq(str, (char *)json_object_get_string(get(json_object_array_get_idx(fn, 1),
							       "function")), "middle"));
	json_object_put(sum);
}
