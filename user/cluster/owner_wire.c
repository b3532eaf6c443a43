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

/* The first sites of order (largest first) that hold anything at the moment asked. */
static int add_sites(struct arena *a, const struct owner *o, const uint32_t *order,
		     uint32_t nr, bool at_peak, size_t budget, Heaptap__OwnerSite ***out,
		     size_t *n, size_t *names)
{
	*out = arena_alloc(a, WIRE_MAX_OWNER_SITES * sizeof(**out));
	if (!*out)
		return -1;
	for (uint32_t i = 0; i < nr && *n < WIRE_MAX_OWNER_SITES; i++) {
		const struct owner_site *s = &o->sites[order[i]];
		uint64_t blocks = at_peak ? owner_site__peak_blocks(o, s) : s->blocks;
		uint64_t bytes = at_peak ? owner_site__peak_bytes(o, s) : s->bytes;
		Heaptap__OwnerSite *w;

		if (!blocks)
			continue; /* sorted by bytes: blocks of 0 bytes may follow */
		if (*n && *names > budget)
			break;
		if (!(w = site_wire(a, s, blocks, bytes, names)))
			return -1;
		if (!at_peak) {
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

Heaptap__Owner *wire_owner(struct arena *a, const struct owner *o, size_t max_bytes,
			   size_t *bytes)
{
	Heaptap__Owner *m = arena_alloc(a, sizeof(*m));
	uint32_t nr_out, nr_peak;
	uint32_t *by_out = owner__by_outstanding(o, &nr_out);
	uint32_t *by_peak = owner__by_peak(o, &nr_peak);
	size_t names = 0, peak_names = 0;
	int err = !m || !by_out || !by_peak;

	if (!err) {
		heaptap__owner__init(m);
		m->has_blocks = m->has_bytes = m->has_peak_blocks = m->has_peak_bytes = true;
		m->blocks = o->blocks;
		m->bytes = o->bytes;
		m->peak_blocks = o->peak_blocks;
		m->peak_bytes = o->peak_bytes;
		/* Each list has half the room. */
		err = add_sites(a, o, by_out, nr_out, false, max_bytes / 2, &m->outstanding,
				&m->n_outstanding, &names) ||
		      add_sites(a, o, by_peak, nr_peak, true, max_bytes / 2, &m->peak, &m->n_peak,
				&peak_names);
	}
	free(by_out);
	free(by_peak);
	*bytes = names + peak_names;
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
