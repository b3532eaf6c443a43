// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdlib.h>
#include "leak_series.h"

#define MIN_STEADY_STEPS 0.8 /* the share of steps that must not go down */
#define MIN_R_SQUARED 0.8

struct leak_series *leak_series__new(uint64_t first)
{
	struct leak_series *s = calloc(1, sizeof(*s));

	if (s) {
		s->first = first;
		s->stride = 1;
	}
	return s;
}

void leak_series__free(struct leak_series *s)
{
	free(s);
}

void leak_series__add(struct leak_series *s, uint64_t sample, uint64_t bytes, double seconds)
{
	if (sample < s->first || (sample - s->first) % s->stride)
		return;
	if (s->nr == LEAK_POINTS) {
		for (uint32_t i = 0; i < LEAK_POINTS / 2; i++) {
			s->points[i] = s->points[2 * i];
			s->seconds[i] = s->seconds[2 * i];
		}
		s->nr = LEAK_POINTS / 2;
		s->stride *= 2;
		if ((sample - s->first) % s->stride)
			return;
	}
	s->seconds[s->nr] = (float)seconds;
	s->points[s->nr++] = bytes;
}

struct leak_verdict leak_series__verdict(const struct leak_series *s)
{
	struct leak_verdict v = {};
	double n, mean_t = 0, mean_y = 0, stt = 0, sty = 0, syy = 0, slope, r2;
	uint32_t steady = 0, quarter;

	if (!s || s->nr < 2)
		return v;
	n = s->nr;
	for (uint32_t i = 0; i < s->nr; i++) {
		mean_t += s->seconds[i];
		mean_y += (double)s->points[i];
	}
	mean_t /= n;
	mean_y /= n;
	for (uint32_t i = 0; i < s->nr; i++) {
		double dt = s->seconds[i] - mean_t, dy = (double)s->points[i] - mean_y;

		stt += dt * dt;
		sty += dt * dy;
		syy += dy * dy;
		if (i && s->points[i] >= s->points[i - 1])
			steady++;
	}
	if (stt <= 0)
		return v; /* all at one time: no slope */
	slope = sty / stt;
	v.growth_bytes_per_second = slope;
	r2 = syy > 0 ? sty * sty / (stt * syy) : 0;
	quarter = s->nr / 4 ? s->nr / 4 : 1;
	v.likely_leak = s->nr >= LEAK_MIN_POINTS && steady >= MIN_STEADY_STEPS * (n - 1) &&
			slope > 0 && r2 >= MIN_R_SQUARED &&
			s->points[s->nr - 1] > s->points[s->nr - 1 - quarter];
	return v;
}
