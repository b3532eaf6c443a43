// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The node in a run's JSON report ("node"): what all its traced processes held at once,
 * its peak, when, and the sites across processes that held it then; beside it the sum of
 * the processes' own peaks, which came at different moments.
 */
#include <stdlib.h>
#include "report.h"

/* The sites kept, across every process, largest first. */
#define NODE_SITES 20

struct node_site {
	const struct target *t;
	const struct owner_site *s;
	uint64_t bytes, blocks;
};

static int by_bytes(const void *a, const void *b)
{
	const struct node_site *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->t->pid < y->t->pid ? -1 : x->t->pid > y->t->pid;
}

static json_object *site_json(const struct node_site *n)
{
	json_object *o = json_object_new_object(), *frames = json_object_new_array();
	const struct stack_record *r = n->s->record;

	for (size_t i = 0; r && i < r->nr; i++)
		json_object_array_add(frames, report_frame_json(&r->frames[i], false));
	json_object_object_add(o, "pid", json_object_new_int(n->t->pid));
	json_object_object_add(o, "rank", json_object_new_int(n->t->mpi.rank));
	json_object_object_add(o, "frames", frames);
	json_object_object_add(o, "blocks", json_object_new_uint64(n->blocks));
	json_object_object_add(o, "bytes", json_object_new_uint64(n->bytes));
	return o;
}

/* Every process's sites that held anything at the node's peak, the largest NODE_SITES. */
static json_object *sites_json(struct target **targets, size_t n)
{
	json_object *list = json_object_new_array();
	struct node_site *all = NULL;
	size_t nr = 0, cap = 0;

	for (size_t i = 0; i < n; i++) {
		const struct owner *o = &targets[i]->owner;

		for (uint32_t k = 0; o->live && !o->sites_dropped && k < o->nr_sites; k++) {
			uint64_t bytes = owner_site__node_bytes(o, &o->sites[k]);

			if (!bytes)
				continue;
			if (nr == cap) {
				struct node_site *grown;

				cap = cap ? 2 * cap : 64;
				if (!(grown = realloc(all, cap * sizeof(*all)))) {
					free(all);
					return list;
				}
				all = grown;
			}
			all[nr++] = (struct node_site){ targets[i], &o->sites[k], bytes,
							owner_site__node_blocks(o, &o->sites[k]) };
		}
	}
	if (nr)
		qsort(all, nr, sizeof(*all), by_bytes);
	for (size_t i = 0; i < nr && i < NODE_SITES; i++)
		json_object_array_add(list, site_json(&all[i]));
	free(all);
	return list;
}

json_object *report_node_json(struct session *s, struct target **targets, size_t n,
			      json_object *(*samples)(const struct total_series *))
{
	const struct total_series *series;
	const struct node_total *node = session__node(s, &series);
	json_object *o = json_object_new_object(), *peak = json_object_new_object();
	uint64_t sum_of_peaks = 0;

	for (size_t i = 0; i < n; i++)
		sum_of_peaks += targets[i]->owner.peak_bytes;
	json_object_object_add(o, "bytes", json_object_new_uint64(node->bytes));
	json_object_object_add(o, "blocks", json_object_new_uint64(node->blocks));
	json_object_object_add(peak, "bytes", json_object_new_uint64(node->peak_bytes));
	json_object_object_add(peak, "blocks", json_object_new_uint64(node->peak_blocks));
	/* The time of the call that made it, since tracing began. */
	json_object_object_add(peak, "seconds", json_object_new_double(node->peak_seconds));
	json_object_object_add(peak, "sites", sites_json(targets, n));
	json_object_object_add(o, "peak", peak);
	json_object_object_add(o, "sum_of_process_peaks", json_object_new_uint64(sum_of_peaks));
	json_object_object_add(o, "samples", samples(series));
	return o;
}
