// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The node's total, merged in the calls' time order from each consumer's journal (see
 * node_total.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "node_total.h"
#include "owner.h"

int node_total__init(struct node_total *n, unsigned consumers, uint64_t started_ns)
{
	memset(n, 0, sizeof(*n));
	n->journals = calloc(consumers, sizeof(*n->journals));
	if (!n->journals)
		return -ENOMEM;
	n->nr_journals = consumers;
	n->started_ns = started_ns;
	pthread_mutex_init(&n->lock, NULL);
	return 0;
}

void node_total__clear(struct node_total *n)
{
	for (unsigned i = 0; n->journals && i < n->nr_journals; i++)
		free(n->journals[i].changes);
	free(n->journals);
	pthread_mutex_destroy(&n->lock);
	memset(n, 0, sizeof(*n));
}

static bool append(struct node_change **changes, size_t *nr, size_t *capacity,
		   const struct node_change *add, size_t count)
{
	if (*nr + count > *capacity) {
		size_t capacity2 = *capacity ? *capacity : 1024;
		struct node_change *grown;

		while (capacity2 < *nr + count)
			capacity2 *= 2;
		grown = realloc(*changes, capacity2 * sizeof(*grown));
		if (!grown)
			return false;
		*changes = grown;
		*capacity = capacity2;
	}
	memcpy(*changes + *nr, add, count * sizeof(*add));
	*nr += count;
	return true;
}

void node_log__add(struct node_log *log, const struct node_change *change)
{
	if (!append(&log->changes, &log->nr, &log->capacity, change, 1))
		log->out_of_memory = true;
}

void node_log__clear(struct node_log *log)
{
	free(log->changes);
	memset(log, 0, sizeof(*log));
}

/* The merge's value of o's site, made on first sight; NULL out of memory. */
static struct node_site_value *site_value(struct owner *o, uint32_t site)
{
	if (site >= o->nr_node_sites) {
		uint32_t nr = site + 1 > 2 * o->nr_node_sites ? site + 1 : 2 * o->nr_node_sites;
		struct node_site_value *grown = realloc(o->node_sites, nr * sizeof(*grown));

		if (!grown)
			return NULL;
		memset(grown + o->nr_node_sites, 0,
		       (nr - o->nr_node_sites) * sizeof(*grown));
		o->node_sites = grown;
		o->nr_node_sites = nr;
	}
	return &o->node_sites[site];
}

/* Before a site's first change since the node last peaked: its value at that peak. */
static void save_peak_value(const struct node_total *n, struct node_site_value *v)
{
	if (v->peak_gen == n->generation)
		return;
	v->peak_gen = n->generation;
	v->peak_bytes = v->bytes;
	v->peak_blocks = v->blocks;
}

static void apply(struct node_total *n, const struct node_change *c)
{
	struct owner *o = c->owner;
	struct node_site_value *v;

	if (o->node_ended)
		return;
	if (c->site == NODE_OWNER_ENDS) {
		/* Its blocks leave the sum: each site's value at the node's peak is kept. */
		for (uint32_t i = 0; i < o->nr_node_sites; i++) {
			save_peak_value(n, &o->node_sites[i]);
			o->node_sites[i].bytes = o->node_sites[i].blocks = 0;
		}
		n->bytes -= o->node_bytes;
		n->blocks -= o->node_blocks;
		o->node_bytes = o->node_blocks = 0;
		o->node_ended = true;
		return;
	}
	if (!(v = site_value(o, c->site)))
		return;
	save_peak_value(n, v);
	v->bytes += c->bytes;
	v->blocks += c->blocks;
	o->node_bytes += c->bytes;
	o->node_blocks += c->blocks;
	n->bytes += c->bytes;
	n->blocks += c->blocks;
	if (n->bytes > n->peak_bytes) {
		/* Every site's current value is now its value at the peak. */
		n->peak_bytes = n->bytes;
		n->peak_blocks = n->blocks;
		n->generation++;
		n->peak_seconds = c->time_ns > n->started_ns ?
					  (double)(c->time_ns - n->started_ns) / 1e9 : 0;
	}
}

/*
 * Apply, oldest first, every journal's changes up to the time all journals are read past.
 * Within a journal the order is its ring's; across journals, the calls' times.
 */
static void merge(struct node_total *n)
{
	uint64_t until = UINT64_MAX;

	for (unsigned i = 0; i < n->nr_journals; i++) {
		if (n->journals[i].read_to_ns < until)
			until = n->journals[i].read_to_ns;
	}
	for (;;) {
		struct node_journal *next = NULL;

		for (unsigned i = 0; i < n->nr_journals; i++) {
			struct node_journal *j = &n->journals[i];

			if (j->first < j->nr && j->changes[j->first].time_ns <= until &&
			    (!next || j->changes[j->first].time_ns <
					      next->changes[next->first].time_ns))
				next = j;
		}
		if (!next)
			break;
		apply(n, &next->changes[next->first++]);
	}
	/* Keep each journal's unmerged tail at its start. */
	for (unsigned i = 0; i < n->nr_journals; i++) {
		struct node_journal *j = &n->journals[i];

		if (j->first && j->first >= j->nr / 2) {
			memmove(j->changes, j->changes + j->first,
				(j->nr - j->first) * sizeof(*j->changes));
			j->nr -= j->first;
			j->first = 0;
		}
	}
}

void node_total__publish(struct node_total *n, unsigned idx, struct node_log *log,
			 uint64_t read_to_ns)
{
	struct node_journal *j = &n->journals[idx];

	pthread_mutex_lock(&n->lock);
	if (log->nr && !append(&j->changes, &j->nr, &j->capacity, log->changes, log->nr))
		log->out_of_memory = true;
	log->nr = 0;
	if (read_to_ns > j->read_to_ns)
		j->read_to_ns = read_to_ns;
	merge(n);
	pthread_mutex_unlock(&n->lock);
}

struct node_site_value node_total__site_at_peak(const struct node_total *n,
						const struct owner *o, uint32_t site)
{
	struct node_site_value v = {};

	if (site < o->nr_node_sites) {
		v = o->node_sites[site];
		if (v.peak_gen != n->generation) {
			v.peak_bytes = v.bytes; /* unchanged since the peak */
			v.peak_blocks = v.blocks;
		}
	}
	return v;
}
