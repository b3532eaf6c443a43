// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdlib.h>
#include "stored_owner.h"

static void free_sites(struct stored_site *sites, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		json_object_put(sites[i].frames);
	free(sites);
}

void stored_owner__free(struct stored_owner *o)
{
	if (!o)
		return;
	free_sites(o->outstanding, o->nr_outstanding);
	free_sites(o->peak, o->nr_peak);
	free_sites(o->allocated, o->nr_allocated);
	free_sites(o->oom_sites, o->nr_oom);
	json_object_put(o->oom_cgroup);
	free(o);
}
