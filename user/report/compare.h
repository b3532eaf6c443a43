/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * heaptap compare: the same program's reports at different process counts. For each
 * call-tree node below a function, the median over ranks of its current and max bytes per
 * process count p, and a least-squares line max = a + b*p through those medians.
 */
#ifndef HEAPTAP_COMPARE_H
#define HEAPTAP_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "report_input.h"

/* A function grows when b*p_max is this share of its max at p_max, and the line fits. */
#define COMPARE_GROWTH_SHARE 0.10
#define COMPARE_MIN_R2 0.80

struct linear_fit {
	double a, b; /* value = a + b*p */
	double r2;   /* 1 when the values are all equal (the line is exact) */
};

/* The least-squares line through (x[i], y[i]); -EINVAL unless x has two distinct values. */
int linear_fit(const double *x, const double *y, size_t n, struct linear_fit *out);
/* The median of v[0..n) (sorted in place); the mean of the middle two when n is even. */
double median(double *v, size_t n);

struct compare_point {
	int world_size;
	size_t ranks;
	double current, max;		/* medians over the ranks */
	double current_min, current_max; /* over the ranks */
	double max_min, max_max;
};

struct compare_row {
	char **functions, **libraries; /* its path, outermost first */
	size_t depth;
	struct compare_point *points; /* one per process count, in increasing order */
	struct linear_fit fit;	      /* of the medians of max */
	bool grows;
};

struct comparison {
	const char *under; /* NULL: below each entry function */
	unsigned depth;
	size_t nr_sizes;
	int world_size[64];	  /* the process counts, in increasing order */
	struct compare_row *rows; /* growing first, then by bytes per process */
	size_t nr;
	/* Processes compared whose figures are sampled estimates, and the largest R. */
	size_t nr_sampled;
	uint64_t sample_bytes;
};

/*
 * Compare the reports (each read whole): group their MPI ranks by world size (a report
 * without ranks is one run of as many processes as it has). 0, or -EINVAL after one line
 * saying why (fewer than two process counts, a report without call trees), or -ENOMEM.
 */
int comparison__build(const struct loaded_report *reports, size_t nr, const char *under,
		      unsigned depth, struct comparison *out);
void comparison__clear(struct comparison *c);

/* The outputs: a text table, JSON ("heaptap_compare": 1), and a web page. */
void comparison__text(FILE *out, const struct comparison *c);
void comparison__json(FILE *out, const struct comparison *c);
void comparison__html(FILE *out, const struct comparison *c);

#endif
