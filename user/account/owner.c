// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "owner.h"

int owner__init(struct owner *o, size_t live_limit, double interval)
{
	memset(o, 0, sizeof(*o));
	o->interval = interval > 0 ? interval : 1.0;
	o->live = live_blocks__new(live_limit);
	o->sites = calloc(16, sizeof(*o->sites));
	if (!o->live || !o->sites) {
		owner__clear(o);
		return -ENOMEM;
	}
	o->sites_capacity = 16;
	o->nr_sites = 1;
	o->freed_before_tracing.bytes_known = true;
	return 0;
}

void owner__drop_sites(struct owner *o)
{
	for (uint32_t i = 0; i < o->nr_sites; i++)
		leak_series__free(o->sites[i].series);
	free(o->sites);
	o->sites = NULL;
	o->nr_sites = o->sites_capacity = 0;
	o->sites_dropped = true;
}

void owner__clear(struct owner *o)
{
	owner__drop_sites(o);
	live_blocks__free(o->live);
	memset(o, 0, sizeof(*o));
}

void owner__end(struct owner *o)
{
	live_blocks__retire(o->live);
}

size_t owner__sites_bytes(const struct owner *o)
{
	size_t bytes = o->sites_capacity * sizeof(o->sites[0]);

	for (uint32_t i = 0; i < o->nr_sites; i++)
		bytes += o->sites[i].series ? sizeof(struct leak_series) : 0;
	return bytes;
}

/* The site's index, given on its first allocation; 0 (unrecorded) if no memory. */
static uint32_t site_of(struct owner *o, struct stack_record *rec)
{
	if (!rec)
		return 0;
	if (rec->site)
		return rec->site;
	if (o->nr_sites == o->sites_capacity) {
		uint32_t capacity = o->sites_capacity * 2;
		struct owner_site *sites = realloc(o->sites, capacity * sizeof(*sites));

		if (!sites)
			return 0;
		o->sites = sites;
		o->sites_capacity = capacity;
	}
	memset(&o->sites[o->nr_sites], 0, sizeof(o->sites[0]));
	o->sites[o->nr_sites].record = rec;
	rec->site = o->nr_sites;
	return o->nr_sites++;
}

/* Before a site changes: its value at the last peak, unless saved in this generation. */
static void save_peak_value(const struct owner *o, struct owner_site *s)
{
	if (s->peak_gen == o->generation)
		return;
	s->peak_gen = o->generation;
	s->peak_bytes = s->bytes;
	s->peak_blocks = s->blocks;
}

void owner__allocated(struct owner *o, struct stack_record *rec, uint64_t addr,
		      struct live_block b)
{
	struct owner_site *s;
	struct live_block replaced;
	int added;

	if (!o->live)
		return;
	b.site = site_of(o, rec);
	s = &o->sites[b.site];
	s->allocated_blocks++;
	s->allocated_bytes += b.usable;
	added = live_blocks__add(o->live, addr, &b, &replaced);
	if (added < 0)
		return; /* counted by the table: live_blocks__over_limit() */
	if (added == 1) {
		/* Its release was lost: it left its site then. */
		struct owner_site *old = &o->sites[replaced.site];

		save_peak_value(o, old);
		old->blocks--;
		old->bytes -= replaced.usable;
		old->requested -= replaced.requested;
		o->blocks--;
		o->bytes -= replaced.usable;
	}
	save_peak_value(o, s);
	s->blocks++;
	s->bytes += b.usable;
	s->requested += b.requested;
	o->blocks++;
	o->bytes += b.usable;
	if (o->bytes > o->peak_bytes) {
		/* Every site's current value is now its value at the peak. */
		o->peak_bytes = o->bytes;
		o->peak_blocks = o->blocks;
		o->generation++;
	}
}

bool owner__released(struct owner *o, uint64_t addr, uint64_t header_bytes, bool bytes_known,
		     struct live_block *out)
{
	struct owner_site *s;

	if (!o->live)
		return false;
	if (!live_blocks__take(o->live, addr, out)) {
		o->freed_before_tracing.calls++;
		o->freed_before_tracing.bytes += header_bytes;
		o->freed_before_tracing.bytes_known &= bytes_known;
		return false;
	}
	s = &o->sites[out->site];
	save_peak_value(o, s);
	s->blocks--;
	s->bytes -= out->usable;
	s->requested -= out->requested;
	o->blocks--;
	o->bytes -= out->usable;
	return true;
}

void owner__sample(struct owner *o, double seconds)
{
	for (uint32_t i = 0; i < o->nr_sites; i++) {
		struct owner_site *s = &o->sites[i];

		if (!s->series && s->bytes)
			s->series = leak_series__new(o->samples);
		if (s->series)
			leak_series__add(s->series, o->samples, s->bytes, seconds);
	}
	o->samples++;
}

static int by_outstanding(const void *a, const void *b, void *owner)
{
	const struct owner *o = owner;
	const struct owner_site *x = &o->sites[*(const uint32_t *)a];
	const struct owner_site *y = &o->sites[*(const uint32_t *)b];

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->allocated_bytes != y->allocated_bytes)
		return x->allocated_bytes > y->allocated_bytes ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int by_peak(const void *a, const void *b, void *owner)
{
	const struct owner *o = owner;
	uint64_t x = owner_site__peak_bytes(o, &o->sites[*(const uint32_t *)a]);
	uint64_t y = owner_site__peak_bytes(o, &o->sites[*(const uint32_t *)b]);

	if (x != y)
		return x > y ? -1 : 1;
	return by_outstanding(a, b, owner);
}

static uint32_t *sorted(const struct owner *o, uint32_t *nr,
			int (*cmp)(const void *, const void *, void *))
{
	uint32_t *order = malloc((o->nr_sites ? o->nr_sites : 1) * sizeof(*order));

	*nr = 0;
	if (!order)
		return NULL;
	for (uint32_t i = 0; i < o->nr_sites; i++)
		order[i] = i;
	qsort_r(order, o->nr_sites, sizeof(*order), cmp, (void *)o);
	*nr = o->nr_sites;
	return order;
}

uint32_t *owner__by_outstanding(const struct owner *o, uint32_t *nr)
{
	return sorted(o, nr, by_outstanding);
}

uint32_t *owner__by_peak(const struct owner *o, uint32_t *nr)
{
	return sorted(o, nr, by_peak);
}
