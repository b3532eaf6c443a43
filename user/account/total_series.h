/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A process's total over time (the report's processes[].samples): its current and max
 * bytes every -i seconds, and when it ends. Bounded: once full, every other sample goes
 * and the beat halves, so that a process traced for days keeps its whole span.
 */
#ifndef HEAPTAP_TOTAL_SERIES_H
#define HEAPTAP_TOTAL_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#define TOTAL_SERIES_MAX 2048 /* samples kept per process */

struct total_sample {
	double t; /* seconds since tracing started */
	int64_t current, max;
};

struct total_series {
	struct total_sample *items;
	uint32_t nr, cap;
	uint32_t stride; /* beats per sample kept (0 and 1: every beat) */
	uint32_t beats;	 /* beats since the last sample kept */
};

/*
 * A beat of the sampling clock at t: kept when the series' stride says so, always with
 * last (the process ended, or tracing stopped). 0 or -ENOMEM (the sample not kept).
 */
int total_series__add(struct total_series *s, double t, int64_t current, int64_t max,
		      bool last);
void total_series__clear(struct total_series *s);

#endif
