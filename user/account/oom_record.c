// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdlib.h>
#include "oom_record.h"

void oom_record__take(struct oom_record *r, const struct owner *o, double seconds)
{
	uint32_t nr, *order = o->sites_dropped ? NULL : owner__by_outstanding(o, &nr);

	r->killed = true;
	r->seconds = seconds;
	r->blocks = o->blocks;
	r->bytes = o->bytes;
	r->nr_sites = 0;
	for (uint32_t i = 0; order && i < nr && r->nr_sites < OOM_SITES; i++) {
		const struct owner_site *s = &o->sites[order[i]];

		if (!s->blocks)
			break; /* sorted by bytes held */
		r->sites[r->nr_sites++] = (struct oom_site){
			.site = order[i],
			.blocks = s->blocks,
			.bytes = s->bytes,
		};
	}
	free(order);
}
