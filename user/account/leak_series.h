/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * One allocation site's outstanding bytes over time, sampled every interval, in at most
 * LEAK_POINTS points (when full, every other point goes and the spacing doubles: a run of
 * any length fits, evenly spaced), and the test that calls its growth a likely leak. Each
 * point keeps the time it was taken: a sample taken late (heaptap was busy) is fitted
 * where it belongs.
 */
#ifndef HEAPTAP_LEAK_SERIES_H
#define HEAPTAP_LEAK_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#define LEAK_POINTS 32
/* A leak needs this many points: 4 seconds of growth at the default interval. */
#define LEAK_MIN_POINTS 4

struct leak_series {
	uint64_t first;	 /* the sample number of points[0] */
	uint32_t stride; /* samples between two points */
	uint32_t nr;
	uint64_t points[LEAK_POINTS]; /* outstanding bytes */
	float seconds[LEAK_POINTS];   /* when, since tracing began */
};

struct leak_verdict {
	bool likely_leak;
	double growth_bytes_per_second; /* the fitted slope; 0 with fewer than 2 points */
};

/* A series starting at sample number first; NULL if no memory. */
struct leak_series *leak_series__new(uint64_t first);
void leak_series__free(struct leak_series *s);
/* The site's outstanding bytes at sample number sample (in order, each once), taken at seconds. */
void leak_series__add(struct leak_series *s, uint64_t sample, uint64_t bytes, double seconds);
/*
 * A likely leak: at least LEAK_MIN_POINTS points, 80% of the steps between them not
 * downwards, a least-squares line rising, close to the points (R² >= 0.8), and growth
 * over the last quarter of the series: memory that keeps coming, not blocks taken once
 * and held.
 */
struct leak_verdict leak_series__verdict(const struct leak_series *s);

#endif
