// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The job summary's hosts and deaths: each host's peak of what its processes held at once
 * (nodes), and the ranks the OOM killer chose (oom_kills).
 */
#include <stdlib.h>
#include <string.h>
#include "job_summary_nodes.h"

/* A list's length; 0 when it is not one. */
static size_t length_of(json_object *list)
{
	return list && json_object_is_type(list, json_type_array) ?
		       json_object_array_length(list) : 0;
}

/* from's fields keys (NULL-terminated) into to, a reference each (null when absent). */
static void copy_fields(json_object *to, json_object *from, const char *const *keys)
{
	for (; *keys; keys++)
		json_object_object_add(to, *keys,
				       json_object_get(json_object_object_get(from, *keys)));
}

static int64_t peak_bytes(const struct job_rank *r)
{
	json_object *b = json_object_object_get(r->peak, "bytes");

	return b ? json_object_get_int64(b) : 0;
}

/* The ranks the OOM killer chose, in rank order: NULL when none. */
json_object *job_oom_json(const struct job *j, size_t max_sites)
{
	json_object *list = NULL;

	for (size_t i = 0; i < j->nr; i++) {
		const struct job_rank *r = &j->ranks[i];
		static const char *const fields[] = { "time", "bytes", "blocks", "cgroup", NULL };
		json_object *o, *sites, *all;
		size_t nr;

		if (!r->oom)
			continue;
		if (!list && !(list = json_object_new_array()))
			return NULL;
		o = json_object_new_object();
		sites = json_object_new_array();
		json_object_object_add(o, "rank", json_object_new_int(r->rank));
		json_object_object_add(o, "pid", json_object_new_int(r->pid));
		json_object_object_add(o, "host", r->host ? json_object_new_string(r->host) : NULL);
		copy_fields(o, r->oom, fields);
		all = json_object_object_get(r->oom, "sites");
		nr = length_of(all);
		for (size_t s = 0; s < nr && (!max_sites || s < max_sites); s++)
			json_object_array_add(sites,
					      json_object_get(json_object_array_get_idx(all, s)));
		json_object_object_add(o, "sites", sites);
		json_object_array_add(list, o);
	}
	return list;
}

/* The job's rank of the process pid, as the summary numbers ranks (-1: not a rank). */
static int rank_of_pid(const struct job *j, int64_t pid)
{
	for (size_t i = 0; i < j->nr; i++) {
		if (j->ranks[i].pid == pid)
			return j->ranks[i].rank;
	}
	return -1;
}

/*
 * Each host's peak of what its processes held at once, from the reports that carry it:
 * NULL when none does. A host of several reports (one heaptap per rank) has no peak:
 * their processes' figures were never added up as they happened.
 */
static bool same_host(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int by_time(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * A host's sum at once from its ranks' stored samples (a collector's run: t on one clock,
 * the run's start): at each sample time, each rank's latest current (none before its
 * first sample, none after the last of a rank that exited). Its agents sample when a
 * batch goes, about each second: a higher sum between two samples is missed.
 */
static json_object *sampled_node(const struct job *j, const char *host)
{
	json_object *o = json_object_new_object(), *peak = json_object_new_object();
	size_t nr = 0, ranks = 0, *at = calloc(j->nr ? j->nr : 1, sizeof(*at));
	double *times, best_t = 0;
	int64_t best = -1, sum_of_rank_peaks = 0;

	for (size_t r = 0; r < j->nr; r++)
		nr += same_host(j->ranks[r].host, host) ? j->ranks[r].nr_samples : 0;
	times = malloc((nr ? nr : 1) * sizeof(*times));
	if (!o || !peak || !at || !times) {
		free(at);
		free(times);
		json_object_put(o);
		json_object_put(peak);
		return NULL;
	}
	nr = 0;
	for (size_t r = 0; r < j->nr; r++) {
		const struct job_rank *jr = &j->ranks[r];

		if (!same_host(jr->host, host))
			continue;
		ranks++;
		sum_of_rank_peaks += jr->total.max;
		for (size_t k = 0; k < jr->nr_samples; k++)
			times[nr++] = jr->samples[k].t;
	}
	qsort(times, nr, sizeof(*times), by_time);
	for (size_t i = 0; i < nr; i++) {
		int64_t sum = 0;

		for (size_t r = 0; r < j->nr; r++) {
			const struct job_rank *jr = &j->ranks[r];

			if (!same_host(jr->host, host) || !jr->nr_samples ||
			    jr->samples[0].t > times[i])
				continue;
			while (at[r] + 1 < jr->nr_samples && jr->samples[at[r] + 1].t <= times[i])
				at[r]++;
			if (at[r] + 1 == jr->nr_samples && jr->exited &&
			    jr->samples[at[r]].t < times[i])
				continue; /* it had ended */
			sum += jr->samples[at[r]].current;
		}
		if (sum > best) {
			best = sum;
			best_t = times[i];
		}
	}
	free(at);
	free(times);
	json_object_object_add(o, "host", host ? json_object_new_string(host) : NULL);
	json_object_object_add(o, "ranks", json_object_new_uint64(ranks));
	json_object_object_add(o, "reports", json_object_new_uint64(0));
	json_object_object_add(o, "sum_of_rank_peaks", json_object_new_int64(sum_of_rank_peaks));
	json_object_object_add(o, "resolution", json_object_new_string("samples"));
	if (best < 0) {
		json_object_put(peak);
		json_object_object_add(o, "peak", NULL);
		return o;
	}
	json_object_object_add(peak, "bytes", json_object_new_int64(best));
	json_object_object_add(peak, "blocks", NULL);
	json_object_object_add(peak, "seconds", json_object_new_double(best_t));
	json_object_object_add(peak, "sites", json_object_new_array());
	json_object_object_add(o, "peak", peak);
	return o;
}

/* A collector's run: each host's sum from its ranks' samples. */
static json_object *sampled_nodes(const struct job *j)
{
	json_object *list = json_object_new_array();

	for (size_t r = 0; list && r < j->nr; r++) {
		bool seen = false;

		for (size_t k = 0; k < r && !seen; k++)
			seen = same_host(j->ranks[k].host, j->ranks[r].host);
		if (!seen)
			json_object_array_add(list, sampled_node(j, j->ranks[r].host));
	}
	return list;
}

json_object *job_nodes_json(const struct job *j, size_t max_sites)
{
	static const char *const peak_fields[] = { "bytes", "blocks", "seconds", NULL };
	static const char *const site_fields[] = { "frames", "blocks", "bytes", NULL };
	json_object *list = j->nr_nodes ? json_object_new_array() : NULL;

	if (!j->nr_nodes && j->run)
		return j->nr ? sampled_nodes(j) : NULL;

	for (size_t i = 0; list && i < j->nr_nodes; i++) {
		const struct job_node *n = &j->nodes[i];
		json_object *o = json_object_new_object(), *peak, *sites, *all, *v;
		int64_t sum_of_rank_peaks = 0;
		size_t ranks = 0, nr;

		for (size_t r = 0; r < j->nr; r++) {
			const struct job_rank *jr = &j->ranks[r];

			if ((!n->host && !jr->host) ||
			    (n->host && jr->host && !strcmp(n->host, jr->host))) {
				ranks++;
				sum_of_rank_peaks += jr->peak ? peak_bytes(jr) : jr->total.max;
			}
		}
		json_object_object_add(o, "host", n->host ? json_object_new_string(n->host) : NULL);
		json_object_object_add(o, "ranks", json_object_new_uint64(ranks));
		json_object_object_add(o, "reports", json_object_new_uint64(n->reports));
		json_object_object_add(o, "sum_of_rank_peaks",
				       json_object_new_int64(sum_of_rank_peaks));
		json_object_object_add(o, "resolution", json_object_new_string("events"));
		json_object_array_add(list, o);
		if (n->reports > 1 || !json_object_object_get_ex(n->node, "peak", &peak)) {
			json_object_object_add(o, "peak", NULL);
			continue;
		}
		v = json_object_new_object();
		sites = json_object_new_array();
		copy_fields(v, peak, peak_fields);
		all = json_object_object_get(peak, "sites");
		nr = length_of(all);
		for (size_t s = 0; s < nr && (!max_sites || s < max_sites); s++) {
			json_object *site = json_object_array_get_idx(all, s), *out, *f;

			if (!json_object_is_type(site, json_type_object))
				continue;
			out = json_object_new_object();
			f = json_object_object_get(site, "pid");
			json_object_object_add(out, "rank", json_object_new_int(
							rank_of_pid(j, json_object_get_int64(f))));
			json_object_object_add(out, "pid", json_object_get(f));
			copy_fields(out, site, site_fields);
			json_object_array_add(sites, out);
		}
		json_object_object_add(v, "sites", sites);
		json_object_object_add(o, "peak", v);
		if (json_object_object_get_ex(n->node, "samples", &all))
			json_object_object_add(o, "samples", json_object_get(all));
	}
	return list;
}
