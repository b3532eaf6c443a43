// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "owner.h"

void owner__set_sampling(struct owner *o, uint64_t sample_bytes)
{
	o->sample_bytes = sample_bytes;
	if (o->live)
		live_blocks__set_sampling(o->live, sample_bytes);
}

int owner__init(struct owner *o, size_t live_limit, double interval)
{
	memset(o, 0, sizeof(*o));
	o->interval = interval > 0 ? interval : 1.0;
	o->live = live_blocks__new(live_limit);
	o->sites = calloc(16, sizeof(*o->sites));
	o->threads = calloc(16, sizeof(*o->threads));
	if (!o->live || !o->sites || !o->threads) {
		owner__clear(o);
		return -ENOMEM;
	}
	o->sites_capacity = o->threads_capacity = 16;
	o->nr_sites = o->nr_threads = 1;
	o->freed_before_tracing.bytes_known = true;
	return 0;
}

void owner__drop_sites(struct owner *o)
{
	for (uint32_t i = 0; i < o->nr_sites; i++)
		leak_series__free(o->sites[i].series);
	free(o->sites);
	free(o->threads);
	o->sites = NULL;
	o->threads = NULL;
	o->nr_sites = o->sites_capacity = 0;
	o->nr_threads = o->threads_capacity = 0;
	o->sites_dropped = true;
}

void owner__clear(struct owner *o)
{
	owner__drop_sites(o);
	live_blocks__free(o->live);
	free(o->node_sites);
	memset(o, 0, sizeof(*o));
}

/* A change to the node's sum, at the time of the call being counted. */
static void node_note(struct owner *o, uint32_t site, int64_t bytes, int64_t blocks)
{
	if (o->node_log)
		node_log__add(o->node_log, &(struct node_change){ .time_ns = o->event_ns,
								   .owner = o,
								   .bytes = bytes,
								   .blocks = blocks,
								   .site = site });
}

void owner__end(struct owner *o)
{
	live_blocks__retire(o->live);
	/* Its blocks leave the node's sum (at o->event_ns: its end, or its last call). */
	node_note(o, NODE_OWNER_ENDS, 0, 0);
	o->node_log = NULL;
}

size_t owner__sites_bytes(const struct owner *o)
{
	size_t bytes = o->sites_capacity * sizeof(o->sites[0]) +
		       o->threads_capacity * sizeof(o->threads[0]);

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

/*
 * The record of site's blocks allocated by tid, made if new and moved to the front of the
 * site's list (a site's next call is most often from the same thread). 0 (site 0's
 * record without a thread) if no memory: *site is then 0 too, so that the block's
 * figures stay with one site.
 */
static uint32_t thread_of(struct owner *o, uint32_t *site, uint32_t tid)
{
	struct owner_site *s = &o->sites[*site];
	uint32_t *link = &s->threads, i;

	for (i = *link; i; link = &o->threads[i].next, i = *link) {
		if (o->threads[i].tid != tid)
			continue;
		if (link != &s->threads) {
			*link = o->threads[i].next;
			o->threads[i].next = s->threads;
			s->threads = i;
		}
		return i;
	}
	if (o->nr_threads == o->threads_capacity) {
		uint32_t capacity = o->threads_capacity * 2;
		struct owner_thread *threads = realloc(o->threads, capacity * sizeof(*threads));

		if (!threads) {
			*site = 0;
			return 0;
		}
		o->threads = threads;
		o->threads_capacity = capacity;
	}
	i = o->nr_threads++;
	o->threads[i] = (struct owner_thread){ .site = *site, .tid = tid, .next = s->threads };
	s->threads = i;
	return i;
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

static void save_thread_peak_value(const struct owner *o, struct owner_thread *t)
{
	if (t->peak_gen == o->generation)
		return;
	t->peak_gen = o->generation;
	t->peak_bytes = t->bytes;
	t->peak_blocks = t->blocks;
}

/* A block whose record is thread leaves its site's figures and its thread's. */
static void leave(struct owner *o, uint32_t thread, const struct live_block *b)
{
	struct owner_thread *t = &o->threads[thread];
	struct owner_site *s = &o->sites[t->site];
	uint64_t blocks = live_block__blocks(b), usable = live_block__usable(b);

	save_peak_value(o, s);
	save_thread_peak_value(o, t);
	s->blocks -= blocks;
	s->bytes -= usable;
	s->requested -= live_block__requested(b);
	if (b->weight > 0) { /* a sampled block (weight 1: drawn for sure) */
		s->samples--;
		s->variance -= live_block__variance(b);
	}
	t->blocks -= blocks;
	t->bytes -= usable;
	o->blocks -= blocks;
	o->bytes -= usable;
	node_note(o, t->site, -(int64_t)usable, -(int64_t)blocks);
}

void owner__allocated(struct owner *o, struct stack_record *rec, uint64_t addr,
		      struct live_block b)
{
	struct owner_site *s;
	struct owner_thread *t;
	struct live_block replaced;
	uint64_t blocks, usable;
	uint32_t site;
	int added;

	if (!o->live)
		return;
	site = site_of(o, rec);
	b.site = thread_of(o, &site, b.tid);
	s = &o->sites[site];
	t = &o->threads[b.site];
	blocks = live_block__blocks(&b);
	usable = live_block__usable(&b);
	s->allocated_blocks += blocks;
	s->allocated_bytes += usable;
	t->allocated_blocks += blocks;
	t->allocated_bytes += usable;
	added = live_blocks__add(o->live, addr, &b, &replaced);
	if (added < 0)
		return; /* counted by the table: live_blocks__over_limit() */
	if (added == 1)
		leave(o, replaced.site, &replaced); /* its release was lost: it left then */
	save_peak_value(o, s);
	save_thread_peak_value(o, t);
	s->blocks += blocks;
	s->bytes += usable;
	s->requested += live_block__requested(&b);
	if (b.weight > 0) {
		s->samples++;
		s->variance += live_block__variance(&b);
	}
	t->blocks += blocks;
	t->bytes += usable;
	o->blocks += blocks;
	o->bytes += usable;
	if (o->bytes > o->peak_bytes) {
		/* Every site's current value is now its value at the peak. */
		o->peak_bytes = o->bytes;
		o->peak_blocks = o->blocks;
		o->generation++;
	}
	node_note(o, site, (int64_t)usable, (int64_t)blocks);
}

bool owner__released(struct owner *o, uint64_t addr, uint64_t header_bytes, bool bytes_known,
		     struct live_block *out)
{
	if (!o->live)
		return false;
	if (!live_blocks__take(o->live, addr, out)) {
		o->freed_before_tracing.calls++;
		o->freed_before_tracing.bytes += header_bytes;
		o->freed_before_tracing.bytes_known &= bytes_known;
		return false;
	}
	leave(o, out->site, out);
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

static int by_node_peak(const void *a, const void *b, void *owner)
{
	const struct owner *o = owner;
	uint64_t x = owner_site__node_bytes(o, &o->sites[*(const uint32_t *)a]);
	uint64_t y = owner_site__node_bytes(o, &o->sites[*(const uint32_t *)b]);

	if (x != y)
		return x > y ? -1 : 1;
	return by_outstanding(a, b, owner);
}

static int by_allocated(const void *a, const void *b, void *owner)
{
	const struct owner *o = owner;
	const struct owner_site *x = &o->sites[*(const uint32_t *)a];
	const struct owner_site *y = &o->sites[*(const uint32_t *)b];

	if (x->allocated_bytes != y->allocated_bytes)
		return x->allocated_bytes > y->allocated_bytes ? -1 : 1;
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

uint32_t *owner__by_node_peak(const struct owner *o, uint32_t *nr)
{
	return sorted(o, nr, by_node_peak);
}

uint32_t *owner__by_allocated(const struct owner *o, uint32_t *nr)
{
	return sorted(o, nr, by_allocated);
}
