// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include "total_series.h"

/* Every other sample gone (the newest kept), the beat halved. */
static void thin(struct total_series *s)
{
	uint32_t kept = 0;

	for (uint32_t i = s->nr % 2 ? 0 : 1; i < s->nr; i += 2)
		s->items[kept++] = s->items[i];
	s->nr = kept;
	s->stride = s->stride ? s->stride * 2 : 2;
}

int total_series__add(struct total_series *s, double t, int64_t current, int64_t max,
		      bool last)
{
	if (!last && ++s->beats < s->stride)
		return 0;
	/* Twice within a millisecond (the reports' precision): the newest figures. */
	if (s->nr && s->items[s->nr - 1].t > t - 0.001)
		s->nr--;
	if (s->nr == TOTAL_SERIES_MAX)
		thin(s);
	if (s->nr == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 16;
		struct total_sample *items;

		if (cap > TOTAL_SERIES_MAX)
			cap = TOTAL_SERIES_MAX;
		if (!(items = realloc(s->items, cap * sizeof(*items))))
			return -ENOMEM;
		s->items = items;
		s->cap = cap;
	}
	s->items[s->nr++] = (struct total_sample){ .t = t, .current = current, .max = max };
	s->beats = 0;
	return 0;
}

void total_series__clear(struct total_series *s)
{
	free(s->items);
	*s = (struct total_series){};
}
