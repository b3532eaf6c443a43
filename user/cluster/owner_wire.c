// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdlib.h>
#include <string.h>
#include "owner_wire.h"
#include "wire.h"

/* What a frame or a site costs on the wire besides its names, at most. */
#define FRAME_OVERHEAD 16u
#define SITE_OVERHEAD 48u

static Heaptap__OwnerSite *site_wire(struct arena *a, const struct owner_site *s,
				     uint64_t blocks, uint64_t bytes, size_t *names)
{
	Heaptap__OwnerSite *w = arena_alloc(a, sizeof(*w));
	const struct stack_record *rec = s->record;
	size_t nr = rec ? rec->nr : 0;

	if (!w)
		return NULL;
	heaptap__owner_site__init(w);
	w->has_blocks = w->has_bytes = true;
	w->blocks = blocks;
	w->bytes = bytes;
	nr = nr < WIRE_MAX_SITE_FRAMES ? nr : WIRE_MAX_SITE_FRAMES;
	w->frames = arena_alloc(a, (nr ? nr : 1) * sizeof(*w->frames));
	if (!w->frames)
		return NULL;
	for (size_t i = 0; i < nr; i++) {
		const struct stack_frame *fr = &rec->frames[i];
		Heaptap__SiteFrame *f = arena_alloc(a, sizeof(*f));

		if (!f)
			return NULL;
		heaptap__site_frame__init(f);
		f->function = arena_strdup(a, fr->function);
		f->library = arena_strdup(a, fr->library);
		*names += strlen(fr->function) + strlen(fr->library) + FRAME_OVERHEAD;
		if (fr->file) {
			f->file = arena_strdup(a, fr->file);
			*names += strlen(fr->file);
		}
		f->has_line = fr->line > 0;
		f->line = fr->line > 0 ? fr->line : 0;
		w->frames[w->n_frames++] = f;
	}
	*names += SITE_OVERHEAD;
	return a->failed ? NULL : w;
}

/* The lists of sites an Owner message carries. */
enum site_list { LIST_OUTSTANDING, LIST_PEAK, LIST_ALLOCATED, NR_LISTS };

/* What site s counts in list: blocks and bytes. */
static void figures_of(const struct owner *o, const struct owner_site *s, enum site_list list,
		       uint64_t *blocks, uint64_t *bytes)
{
	switch (list) {
	case LIST_OUTSTANDING:
		*blocks = s->blocks;
		*bytes = s->bytes;
		break;
	case LIST_PEAK:
		*blocks = owner_site__peak_blocks(o, s);
		*bytes = owner_site__peak_bytes(o, s);
		break;
	default:
		*blocks = s->allocated_blocks;
		*bytes = s->allocated_bytes;
		break;
	}
}

/* The first sites of order (largest first) that count anything in list. */
static int add_sites(struct arena *a, const struct owner *o, const uint32_t *order,
		     uint32_t nr, enum site_list list, size_t budget, Heaptap__OwnerSite ***out,
		     size_t *n, size_t *names)
{
	*out = arena_alloc(a, WIRE_MAX_OWNER_SITES * sizeof(**out));
	if (!*out)
		return -1;
	for (uint32_t i = 0; i < nr && *n < WIRE_MAX_OWNER_SITES; i++) {
		const struct owner_site *s = &o->sites[order[i]];
		uint64_t blocks, bytes;
		Heaptap__OwnerSite *w;

		figures_of(o, s, list, &blocks, &bytes);
		if (!blocks)
			continue; /* sorted by bytes: blocks of 0 bytes may follow */
		if (*n && *names > budget)
			break;
		if (!(w = site_wire(a, s, blocks, bytes, names)))
			return -1;
		if (list == LIST_OUTSTANDING) {
			struct leak_verdict v = leak_series__verdict(s->series);

			w->has_requested = w->has_likely_leak = true;
			w->has_growth_bytes_per_second = true;
			w->requested = s->requested;
			w->likely_leak = v.likely_leak;
			w->growth_bytes_per_second = v.growth_bytes_per_second;
		}
		(*out)[(*n)++] = w;
	}
	return 0;
}

static Heaptap__FreedBeforeTracing *freed_wire(struct arena *a, const struct unknown_frees *f)
{
	Heaptap__FreedBeforeTracing *w = arena_alloc(a, sizeof(*w));

	if (!w)
		return NULL;
	heaptap__freed_before_tracing__init(w);
	w->has_calls = w->has_bytes = w->has_bytes_known = true;
	w->calls = f->calls;
	w->bytes = f->bytes;
	w->bytes_known = f->bytes_known;
	return w;
}

/* The OOM killer's choice: its sites as the record kept them, within budget. */
static Heaptap__OomKill *oom_wire(struct arena *a, const struct owner *o,
				  const struct oom_record *r, size_t budget, size_t *names)
{
	Heaptap__OomKill *w = arena_alloc(a, sizeof(*w));
	const struct cgroup_memory *cg = &r->cgroup;

	if (!w)
		return NULL;
	heaptap__oom_kill__init(w);
	w->has_time = w->has_blocks = w->has_bytes = true;
	w->time = r->seconds;
	w->blocks = r->blocks;
	w->bytes = r->bytes;
	w->sites = arena_alloc(a, OOM_SITES * sizeof(*w->sites));
	if (!w->sites)
		return NULL;
	for (uint32_t i = 0; !o->sites_dropped && i < r->nr_sites; i++) {
		if (w->n_sites && *names > budget)
			break;
		w->sites[w->n_sites] = site_wire(a, &o->sites[r->sites[i].site], r->sites[i].blocks,
						 r->sites[i].bytes, names);
		if (!w->sites[w->n_sites++])
			return NULL;
	}
	if (cg->version) {
		w->has_cgroup_version = true;
		w->cgroup_version = cg->version;
		w->cgroup_path = arena_strdup(a, cg->path);
		w->has_cgroup_usage = cg->usage_known;
		w->cgroup_usage = cg->usage;
		w->has_cgroup_limit = cg->limit != 0;
		w->cgroup_limit = cg->limit;
		w->has_cgroup_max_usage = cg->max_known;
		w->cgroup_max_usage = cg->max_usage;
	}
	return a->failed ? NULL : w;
}

Heaptap__Owner *wire_owner(struct arena *a, const struct owner *o, const struct oom_record *oom,
			   size_t max_bytes, size_t *bytes)
{
	static uint32_t *(*const sort[NR_LISTS])(const struct owner *, uint32_t *) = {
		[LIST_OUTSTANDING] = owner__by_outstanding,
		[LIST_PEAK] = owner__by_peak,
		[LIST_ALLOCATED] = owner__by_allocated,
	};
	Heaptap__Owner *m = arena_alloc(a, sizeof(*m));
	Heaptap__OwnerSite ***lists[NR_LISTS];
	size_t *counts[NR_LISTS];
	int err;

	*bytes = 0;
	if (!m)
		return NULL;
	heaptap__owner__init(m);
	m->freed_before_tracing = freed_wire(a, &o->freed_before_tracing);
	err = !m->freed_before_tracing;
	m->has_blocks = m->has_bytes = m->has_peak_blocks = m->has_peak_bytes = true;
	m->blocks = o->blocks;
	m->bytes = o->bytes;
	m->peak_blocks = o->peak_blocks;
	m->peak_bytes = o->peak_bytes;
	lists[LIST_OUTSTANDING] = &m->outstanding;
	lists[LIST_PEAK] = &m->peak;
	lists[LIST_ALLOCATED] = &m->allocated;
	counts[LIST_OUTSTANDING] = &m->n_outstanding;
	counts[LIST_PEAK] = &m->n_peak;
	counts[LIST_ALLOCATED] = &m->n_allocated;
	/* Each list has a third of the room. */
	for (int list = 0; list < NR_LISTS && !err; list++) {
		uint32_t nr, *order = sort[list](o, &nr);
		size_t names = 0;

		err = !order || add_sites(a, o, order, nr, list, max_bytes / NR_LISTS, lists[list],
					  counts[list], &names);
		free(order);
		*bytes += names;
	}
	if (!err && oom && oom->killed) {
		size_t names = 0;

		/* Beside the three lists: a fourth of the room again, the answer to "why". */
		err = !(m->oom = oom_wire(a, o, oom, max_bytes / NR_LISTS, &names));
		*bytes += names;
	}
	return err ? NULL : m;
}

uint64_t wire_owner_digest(const Heaptap__Owner *m)
{
	size_t size = heaptap__owner__get_packed_size(m);
	uint8_t *buf = malloc(size ? size : 1);
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	if (!buf)
		return 0; /* 0: unknown, the caller sends it */
	heaptap__owner__pack(m, buf);
	for (size_t i = 0; i < size; i++)
		h = (h ^ buf[i]) * 0x100000001b3ull;
	free(buf);
	return h;
}
