// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A job's summary across its ranks, as JSON (job_summary.h tells the shape). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "job_stats.h"
#include "job_summary.h"
#include "job_summary_nodes.h"

/* A library or function of any rank: its figures in each rank (0 where it has none). */
struct group_row {
	const char *library, *function; /* the first rank's strings (function NULL: a library) */
	int64_t *current, *max, *calls; /* per rank, in the job's order */
	size_t ranks;			 /* ranks that have it */
	struct job_stat s_current, s_max, s_calls;
	UT_hash_handle hh;
	char key[]; /* library '\0' function */
};

static int64_t calls_of(const struct balance *b)
{
	uint64_t n = 0;

	for (int f = 0; f < HT_NR_FUNCS; f++)
		n += b->calls[f];
	return (int64_t)n;
}

static json_object *stat_json(const struct job_stat *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "min", json_object_new_int64(s->min));
	json_object_object_add(o, "median", json_object_new_int64(s->median));
	json_object_object_add(o, "max", json_object_new_int64(s->max));
	json_object_object_add(o, "rank_of_min", json_object_new_int(s->rank_of_min));
	json_object_object_add(o, "rank_of_max", json_object_new_int(s->rank_of_max));
	return o;
}

static void rows_free(struct group_row **rows)
{
	struct group_row *g, *tmp;

	HASH_ITER(hh, *rows, g, tmp) {
		HASH_DEL(*rows, g);
		free(g->current);
		free(g->max);
		free(g->calls);
		free(g);
	}
}

/* Group g of rank i into rows. 0 or -ENOMEM. */
static int row_add(struct group_row **rows, const struct job_group *g, size_t i, size_t n)
{
	size_t lib = strlen(g->library), fn = g->function ? strlen(g->function) : 0;
	size_t len = lib + 1 + fn;
	struct group_row *row;
	char key[len + 1];

	memcpy(key, g->library, lib + 1);
	if (g->function)
		memcpy(key + lib + 1, g->function, fn + 1);
	else
		key[len] = '\0';
	HASH_FIND(hh, *rows, key, len, row);
	if (!row) {
		if (!(row = calloc(1, sizeof(*row) + len + 1)))
			return -ENOMEM;
		memcpy(row->key, key, len + 1);
		row->library = g->library;
		row->function = g->function;
		row->current = calloc(n, sizeof(int64_t));
		row->max = calloc(n, sizeof(int64_t));
		row->calls = calloc(n, sizeof(int64_t));
		HASH_ADD(hh, *rows, key, len, row);
		if (!row->current || !row->max || !row->calls)
			return -ENOMEM;
	}
	row->current[i] += g->bal.current;
	row->max[i] += g->bal.max;
	row->calls[i] += calls_of(&g->bal);
	row->ranks++;
	return 0;
}

static int by_largest_max(const void *a, const void *b)
{
	const struct group_row *x = *(struct group_row *const *)a;
	const struct group_row *y = *(struct group_row *const *)b;
	int c;

	if (x->s_max.max != y->s_max.max)
		return x->s_max.max > y->s_max.max ? -1 : 1;
	if ((c = strcmp(x->function ? x->function : "", y->function ? y->function : "")))
		return c;
	return strcmp(x->library, y->library);
}

/* The libraries' (functions false) or functions' table, sorted, the first top kept. */
static json_object *groups_json(const struct job *j, const int *ranks, bool functions,
				size_t top)
{
	struct group_row *rows = NULL, *g, *tmp, **order = NULL;
	json_object *list = NULL;
	size_t nr = 0, k = 0;
	int err = 0;

	for (size_t i = 0; i < j->nr && !err; i++) {
		const struct job_rank *r = &j->ranks[i];
		size_t n = functions ? r->nr_functions : r->nr_libraries;
		const struct job_group *groups = functions ? r->functions : r->libraries;

		for (size_t x = 0; x < n && !err; x++)
			err = row_add(&rows, &groups[x], i, j->nr);
	}
	nr = HASH_COUNT(rows);
	if (err || !(order = calloc(nr ? nr : 1, sizeof(*order))))
		goto cleanup;
	HASH_ITER(hh, rows, g, tmp) {
		if (job_stat_of(g->current, ranks, j->nr, &g->s_current) ||
		    job_stat_of(g->max, ranks, j->nr, &g->s_max) ||
		    job_stat_of(g->calls, ranks, j->nr, &g->s_calls))
			goto cleanup;
		order[k++] = g;
	}
	qsort(order, nr, sizeof(*order), by_largest_max);
	list = json_object_new_array();
	for (size_t i = 0; i < nr && (!top || i < top); i++) {
		json_object *o = json_object_new_object();

		g = order[i];
		if (functions)
			json_object_object_add(o, "function", json_object_new_string(g->function));
		json_object_object_add(o, "library", json_object_new_string(g->library));
		json_object_object_add(o, "ranks", json_object_new_uint64(g->ranks));
		json_object_object_add(o, "current", stat_json(&g->s_current));
		json_object_object_add(o, "max", stat_json(&g->s_max));
		json_object_object_add(o, "calls", stat_json(&g->s_calls));
		json_object_array_add(list, o);
	}
cleanup:
	free(order);
	rows_free(&rows);
	return list;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each host once, sorted. */
static json_object *hosts_json(const struct job *j)
{
	const char **hosts = calloc(j->nr ? j->nr : 1, sizeof(*hosts));
	json_object *list = json_object_new_array();
	size_t n = 0;

	if (!hosts)
		return list;
	for (size_t i = 0; i < j->nr; i++) {
		if (j->ranks[i].host)
			hosts[n++] = j->ranks[i].host;
	}
	qsort(hosts, n, sizeof(*hosts), by_string);
	for (size_t i = 0; i < n; i++) {
		if (!i || strcmp(hosts[i], hosts[i - 1]))
			json_object_array_add(list, json_object_new_string(hosts[i]));
	}
	free(hosts);
	return list;
}

static json_object *files_json(const struct job *j)
{
	json_object *list = json_object_new_array();

	for (size_t i = 0; i < j->nr; i++) {
		const char *s = j->ranks[i].source;
		bool seen = false;

		for (size_t k = 0; s && k < i && !seen; k++)
			seen = j->ranks[k].source && !strcmp(j->ranks[k].source, s);
		if (s && !seen)
			json_object_array_add(list, json_object_new_string(s));
	}
	return list;
}

static json_object *samples_json(const struct job_rank *r)
{
	json_object *list = json_object_new_array();

	for (size_t i = 0; i < r->nr_samples; i++) {
		json_object *s = json_object_new_array();

		json_object_array_add(s, json_object_new_double(r->samples[i].t));
		json_object_array_add(s, json_object_new_int64(r->samples[i].current));
		json_object_array_add(s, json_object_new_int64(r->samples[i].max));
		json_object_array_add(list, s);
	}
	return list;
}

static json_object *rank_json(const struct job_rank *r, bool outlier)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "rank", json_object_new_int(r->rank));
	json_object_object_add(o, "pid", json_object_new_int(r->pid));
	json_object_object_add(o, "host", r->host ? json_object_new_string(r->host) : NULL);
	json_object_object_add(o, "command", json_object_new_string(r->command));
	json_object_object_add(o, "source", r->source ? json_object_new_string(r->source) : NULL);
	json_object_object_add(o, "exited", json_object_new_boolean(r->exited));
	json_object_object_add(o, "current", json_object_new_int64(r->total.current));
	json_object_object_add(o, "min", json_object_new_int64(r->total.min));
	json_object_object_add(o, "max", json_object_new_int64(r->total.max));
	json_object_object_add(o, "calls", json_object_new_int64(calls_of(&r->total)));
	json_object_object_add(o, "lost_events", json_object_new_uint64(r->lost_events));
	json_object_object_add(o, "incomplete_stacks",
			       json_object_new_uint64(r->incomplete_stacks));
	/* --sample-bytes R: its bytes, blocks and calls are estimates (null: exact). */
	json_object_object_add(o, "sample_bytes", r->sample_bytes ?
				json_object_new_uint64(r->sample_bytes) : NULL);
	json_object_object_add(o, "outlier", json_object_new_boolean(outlier));
	json_object_object_add(o, "samples", samples_json(r));
	return o;
}

static int64_t peak_bytes(const struct job_rank *r)
{
	json_object *b = json_object_object_get(r->peak, "bytes");

	return b ? json_object_get_int64(b) : 0;
}

/* Ranks with the owner view, by peak bytes, largest first (then by rank). */
static int by_peak(const void *a, const void *b)
{
	const struct job_rank *x = *(const struct job_rank *const *)a;
	const struct job_rank *y = *(const struct job_rank *const *)b;
	int64_t px = peak_bytes(x), py = peak_bytes(y);

	if (px != py)
		return px > py ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* peaks: NULL when no rank has the owner view. */
static json_object *peaks_json(const struct job *j, size_t max_sites)
{
	const struct job_rank **with = calloc(j->nr ? j->nr : 1, sizeof(*with));
	json_object *list = NULL;
	size_t n = 0;

	if (!with)
		return NULL;
	for (size_t i = 0; i < j->nr; i++) {
		if (j->ranks[i].peak)
			with[n++] = &j->ranks[i];
	}
	qsort(with, n, sizeof(*with), by_peak);
	if (n)
		list = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object(), *sites = json_object_new_array();
		json_object *all = json_object_object_get(with[i]->peak, "sites");
		json_object *blocks = json_object_object_get(with[i]->peak, "blocks");
		size_t nr = all && json_object_is_type(all, json_type_array) ?
				    json_object_array_length(all) :
				    0;

		json_object_object_add(o, "rank", json_object_new_int(with[i]->rank));
		json_object_object_add(o, "bytes", json_object_new_int64(peak_bytes(with[i])));
		json_object_object_add(o, "blocks", json_object_new_int64(
							    blocks ? json_object_get_int64(blocks) : 0));
		for (size_t s = 0; s < nr && (!max_sites || s < max_sites); s++) {
			json_object *site = json_object_array_get_idx(all, s);
			json_object *out = json_object_new_object(), *v;

			if (json_object_object_get_ex(site, "frames", &v))
				json_object_object_add(out, "frames", json_object_get(v));
			json_object_object_add(out, "blocks", json_object_new_int64(
				json_object_object_get_ex(site, "blocks", &v) ? json_object_get_int64(v) : 0));
			json_object_object_add(out, "bytes", json_object_new_int64(
				json_object_object_get_ex(site, "bytes", &v) ? json_object_get_int64(v) : 0));
			json_object_array_add(sites, out);
		}
		json_object_object_add(o, "sites", sites);
		json_object_array_add(list, o);
	}
	free(with);
	return list;
}

struct outlier {
	int rank;
	int64_t max;
};

static int by_outlier_max(const void *a, const void *b)
{
	const struct outlier *x = a, *y = b;

	if (x->max != y->max)
		return x->max > y->max ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* outlier_rule and outliers into root; is_outlier set per rank. 0 or -ENOMEM. */
static int add_outliers(json_object *root, const struct job *j, const int64_t *peaks,
			bool *is_outlier)
{
	struct outlier *list = calloc(j->nr ? j->nr : 1, sizeof(*list));
	json_object *rule = json_object_new_object(), *outliers = json_object_new_array();
	int64_t median, mad;
	int n = list ? job_outliers(peaks, j->nr, is_outlier, &median, &mad) : -ENOMEM;
	size_t k = 0;

	if (n < 0) {
		free(list);
		json_object_put(rule);
		json_object_put(outliers);
		return -ENOMEM;
	}
	json_object_object_add(rule, "figure", json_object_new_string("max"));
	json_object_object_add(rule, "z", json_object_new_double(JOB_OUTLIER_Z));
	json_object_object_add(rule, "min_ratio", json_object_new_double(JOB_OUTLIER_MIN_RATIO));
	json_object_object_add(rule, "median", json_object_new_int64(median));
	json_object_object_add(rule, "mad", json_object_new_int64(mad));
	for (size_t i = 0; i < j->nr; i++) {
		if (is_outlier[i])
			list[k++] = (struct outlier){ j->ranks[i].rank, peaks[i] };
	}
	qsort(list, k, sizeof(*list), by_outlier_max);
	for (size_t i = 0; i < k; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "rank", json_object_new_int(list[i].rank));
		json_object_object_add(o, "max", json_object_new_int64(list[i].max));
		json_object_object_add(o, "z", mad ? json_object_new_double(
			(double)(int64_t)(0.6745 * (double)(list[i].max - median) / (double)mad * 100) / 100) : NULL);
		json_object_array_add(outliers, o);
	}
	json_object_object_add(root, "outlier_rule", rule);
	json_object_object_add(root, "outliers", outliers);
	free(list);
	return 0;
}

static json_object *untraced_json(const struct job *j)
{
	json_object *list = json_object_new_array();

	for (size_t i = 0; i < j->nr_untraced; i++) {
		const struct job_untraced *u = &j->untraced[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "pid", json_object_new_int(u->pid));
		json_object_object_add(o, "command",
				       u->command ? json_object_new_string(u->command) : NULL);
		json_object_object_add(o, "reason",
				       u->reason ? json_object_new_string(u->reason) : NULL);
		json_object_array_add(list, o);
	}
	return list;
}

/* total: the ranks' current, max and calls. 0 or -ENOMEM. */
static int add_totals(json_object *root, const struct job *j, const int *ranks,
		      int64_t *current, int64_t *max, int64_t *calls)
{
	json_object *total = json_object_new_object();
	struct job_stat s;
	uint64_t lost = 0, incomplete = 0;
	double duration = -1;
	int world = -1;
	uint64_t sampled_ranks = 0, sample_bytes = 0;

	for (size_t i = 0; i < j->nr; i++) {
		const struct job_rank *r = &j->ranks[i];

		current[i] = r->total.current;
		max[i] = r->total.max;
		calls[i] = calls_of(&r->total);
		lost += r->lost_events;
		incomplete += r->incomplete_stacks;
		if (r->sample_bytes) {
			sampled_ranks++;
			sample_bytes = r->sample_bytes;
		}
		if (r->nr_samples && r->samples[r->nr_samples - 1].t > duration)
			duration = r->samples[r->nr_samples - 1].t;
		if (r->world_size > world)
			world = r->world_size;
	}
	json_object_object_add(root, "world_size", world >= 0 ? json_object_new_int(world) : NULL);
	json_object_object_add(root, "hosts", hosts_json(j));
	json_object_object_add(root, "duration",
			       duration >= 0 ? json_object_new_double(duration) : NULL);
	json_object_object_add(root, "lost_events", json_object_new_uint64(lost));
	json_object_object_add(root, "incomplete_stacks", json_object_new_uint64(incomplete));
	/* The ranks traced by sampling, whose figures are estimates: {"bytes", "ranks"}. */
	if (sampled_ranks) {
		json_object *sampled = json_object_new_object();

		json_object_object_add(sampled, "bytes", json_object_new_uint64(sample_bytes));
		json_object_object_add(sampled, "ranks", json_object_new_uint64(sampled_ranks));
		json_object_object_add(root, "sampled", sampled);
	} else {
		json_object_object_add(root, "sampled", NULL);
	}
	json_object_object_add(root, "other_processes", json_object_new_uint64(j->nr_other));
	json_object_object_add(root, "untraced", untraced_json(j));
	if (job_stat_of(current, ranks, j->nr, &s))
		return -ENOMEM;
	json_object_object_add(total, "current", stat_json(&s));
	if (job_stat_of(max, ranks, j->nr, &s))
		return -ENOMEM;
	json_object_object_add(total, "max", stat_json(&s));
	if (job_stat_of(calls, ranks, j->nr, &s))
		return -ENOMEM;
	json_object_object_add(total, "calls", stat_json(&s));
	json_object_object_add(root, "total", total);
	return 0;
}

json_object *job_summary_build(const struct job *j, const struct job_summary_opts *opts)
{
	struct job_summary_opts all = {};
	size_t n = j->nr ? j->nr : 1;
	json_object *root = json_object_new_object(), *detail, *list, *peaks;
	int *ranks = calloc(n, sizeof(*ranks));
	int64_t *current = calloc(n, sizeof(int64_t)), *max = calloc(n, sizeof(int64_t));
	int64_t *calls = calloc(n, sizeof(int64_t));
	bool *is_outlier = calloc(n, sizeof(bool));
	int err = -ENOMEM;

	if (!opts)
		opts = &all;
	if (!root || !ranks || !current || !max || !calls || !is_outlier)
		goto cleanup;
	for (size_t i = 0; i < j->nr; i++)
		ranks[i] = j->ranks[i].rank;
	json_object_object_add(root, "heaptap_summary", json_object_new_int(1));
	json_object_object_add(root, "attribution", json_object_new_string(j->attribution));
	json_object_object_add(root, "run", j->run ? json_object_new_int64(j->run) : NULL);
	json_object_object_add(root, "files", files_json(j));
	json_object_object_add(root, "job", j->job_id ? json_object_new_string(j->job_id) : NULL);
	json_object_object_add(root, "mpi", json_object_new_boolean(j->mpi));
	json_object_object_add(root, "ranks", json_object_new_uint64(j->nr));
	if (add_totals(root, j, ranks, current, max, calls) ||
	    add_outliers(root, j, max, is_outlier))
		goto cleanup;
	if (!(list = groups_json(j, ranks, false, opts->top)))
		goto cleanup;
	json_object_object_add(root, "libraries", list);
	if (!(list = groups_json(j, ranks, true, opts->top)))
		goto cleanup;
	json_object_object_add(root, "functions", list);
	if ((peaks = peaks_json(j, opts->sites)))
		json_object_object_add(root, "peaks", peaks);
	if ((peaks = job_nodes_json(j, opts->sites)))
		json_object_object_add(root, "nodes", peaks);
	if ((peaks = job_oom_json(j, opts->sites)))
		json_object_object_add(root, "oom_kills", peaks);
	detail = json_object_new_array();
	for (size_t i = 0; i < j->nr; i++)
		json_object_array_add(detail, rank_json(&j->ranks[i], is_outlier[i]));
	json_object_object_add(root, "ranks_detail", detail);
	err = 0;
cleanup:
	free(ranks);
	free(current);
	free(max);
	free(calls);
	free(is_outlier);
	if (err) {
		json_object_put(root);
		return NULL;
	}
	return root;
}
