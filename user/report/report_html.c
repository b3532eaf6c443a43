// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* report --html: a job's page, its data built here and drawn by tools/report/job.js. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "html_page.h"
#include "job_tree.h"
#include "report_frames.h"
#include "report_html.h"
#include "report_scan.h"

struct page_process {
	int rank;
	int pid;
	char *host;
	char *text;		/* its own report, as heaptap report --rank prints it */
	double *t;		/* sample times, seconds, increasing */
	long long *current;	/* bytes at each */
	size_t nr_samples;
};

struct job_page {
	struct page_process *procs;
	size_t nr, cap;
	struct job_tree *tree;
	bool mpi;	    /* the ranks are MPI ranks: processes without one are left out */
	size_t nr_rankless; /* else: processes numbered 0, 1... in the reports' order */
};

static json_object *field(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

struct job_page *job_page__new(bool mpi)
{
	struct job_page *p = calloc(1, sizeof(*p));

	if (p && !(p->tree = job_tree__new())) {
		free(p);
		return NULL;
	}
	if (p)
		p->mpi = mpi;
	return p;
}

int job_page__add_rank(struct job_page *p, const struct job_page_rank *r)
{
	struct page_process *pp;

	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct page_process *procs = realloc(p->procs, cap * sizeof(*procs));

		if (!procs)
			return -ENOMEM;
		p->procs = procs;
		p->cap = cap;
	}
	pp = &p->procs[p->nr++];
	*pp = (struct page_process){ .rank = r->rank, .pid = r->pid };
	if ((r->host && !(pp->host = strdup(r->host))) || !(pp->text = strdup(r->text ?: "")))
		return -ENOMEM;
	pp->t = malloc((r->nr_samples ? r->nr_samples : 1) * sizeof(*pp->t));
	pp->current = malloc((r->nr_samples ? r->nr_samples : 1) * sizeof(*pp->current));
	if (!pp->t || !pp->current)
		return -ENOMEM;
	/* Out of order samples (there should be none) are dropped. */
	for (size_t i = 0; i < r->nr_samples; i++) {
		if (pp->nr_samples && r->samples[i].t < pp->t[pp->nr_samples - 1])
			continue;
		pp->t[pp->nr_samples] = r->samples[i].t;
		pp->current[pp->nr_samples++] = r->samples[i].current;
	}
	return 0;
}

int job_page__add_trees(struct job_page *p, const char *path)
{
	static const char *const unread[] = { "outstanding", "allocated", "peak", "mappings",
					      "samples", "stacks", NULL };
	struct report_cut trees = {};
	json_object *root = NULL, *procs;
	struct report_frames frames;
	size_t size = 0;
	char *text = report_scan__slurp(path, &size);
	int err = text ? 0 : -errno;

	/* The trees cut out of the text and read by hand; json-c parses the rest. */
	if (!err)
		err = report_scan__cut(text, size, "calltree", unread, &trees);
	if (!err && !(root = json_tokener_parse(text)))
		err = -EINVAL;
	free(text);
	procs = field(root, "processes");
	if (!err && (!procs || !json_object_is_type(procs, json_type_array) ||
		     report_frames__read(root, path, &frames)))
		err = -EINVAL;
	for (size_t i = 0; !err && i < json_object_array_length(procs); i++) {
		json_object *proc = json_object_array_get_idx(procs, i);
		json_object *rank = field(proc, "rank");
		bool has_rank = rank && json_object_is_type(rank, json_type_int);

		if (p->mpi && !has_rank)
			continue; /* mpirun, a shell: not a rank */
		err = job_tree__add_report(p->tree, i < trees.nr ? trees.kept[i] : NULL, &frames,
					   p->mpi ? json_object_get_int(rank) :
						    (int)p->nr_rankless++);
	}
	json_object_put(root);
	report_cut__clear(&trees);
	return err == -ENOMEM ? err : err ? -EINVAL : 0;
}

static int by_rank(const void *a, const void *b)
{
	const struct page_process *x = *(struct page_process *const *)a;
	const struct page_process *y = *(struct page_process *const *)b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The times every rank's series is given at: all the samples' times when there are at most
 * JOB_PAGE_MAX_POINTS of them, else that many evenly spaced. *nr: how many.
 */
static double *time_grid(struct page_process *const *order, size_t nr_procs, size_t *nr)
{
	size_t all = 0, n = 0;
	double *t, end = 0;

	for (size_t i = 0; i < nr_procs; i++)
		all += order[i]->nr_samples;
	t = malloc((all > JOB_PAGE_MAX_POINTS ? all : JOB_PAGE_MAX_POINTS) * sizeof(*t) + 1);
	if (!t)
		return NULL;
	for (size_t i = 0; i < nr_procs; i++) {
		memcpy(t + n, order[i]->t, order[i]->nr_samples * sizeof(*t));
		n += order[i]->nr_samples;
	}
	qsort(t, n, sizeof(*t), by_double);
	*nr = 0;
	for (size_t i = 0; i < n; i++) {
		if (!*nr || t[i] != t[*nr - 1])
			t[(*nr)++] = t[i];
	}
	if (*nr > JOB_PAGE_MAX_POINTS) {
		end = t[*nr - 1];
		for (size_t i = 0; i < JOB_PAGE_MAX_POINTS; i++)
			t[i] = end * i / (JOB_PAGE_MAX_POINTS - 1);
		*nr = JOB_PAGE_MAX_POINTS;
	}
	return t;
}

/*
 * A process's bytes at each time of the grid: the most its samples since the grid's time
 * before held (each sample's own value when the grid is the samples' times; a peak between
 * two times of a coarser grid is kept), else that of its last sample before (memory holds
 * its value between samples); null before its first sample and after its last.
 */
static json_object *series_json(const struct page_process *pp, const double *grid, size_t nr)
{
	json_object *a = json_object_new_array_ext(nr);
	size_t s = 0; /* samples taken into the series so far */

	for (size_t i = 0; i < nr; i++) {
		bool got = false;
		long long v = 0;

		for (; s < pp->nr_samples && pp->t[s] <= grid[i]; s++) {
			if (!got || pp->current[s] > v)
				v = pp->current[s];
			got = true;
		}
		if (got)
			json_object_array_add(a, json_object_new_int64(v));
		else if (s == 0 || s == pp->nr_samples)
			json_object_array_add(a, NULL);
		else
			json_object_array_add(a, json_object_new_int64(pp->current[s - 1]));
	}
	return a;
}

/*
 * The summary but its ranks' samples, which the page has as series: a new object sharing
 * the summary's others.
 */
static json_object *summary_without_samples(json_object *summary)
{
	json_object *copy = json_object_new_object();

	if (!summary || !json_object_is_type(summary, json_type_object))
		return copy;
	json_object_object_foreach(summary, key, v) {
		json_object *detail;

		if (strcmp(key, "ranks_detail") || !json_object_is_type(v, json_type_array)) {
			json_object_object_add(copy, key, json_object_get(v));
			continue;
		}
		detail = json_object_new_array();
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			json_object *r = json_object_array_get_idx(v, i);
			json_object *c = json_object_new_object();

			json_object_object_foreach(r, k, x) {
				if (strcmp(k, "samples"))
					json_object_object_add(c, k, json_object_get(x));
			}
			json_object_array_add(detail, c);
		}
		json_object_object_add(copy, key, detail);
	}
	return copy;
}

/* Everything job.js draws from, in one block; the texts in another, parsed on a click. */
static void write_data(FILE *out, struct job_page *p, struct page_process **order, size_t nr,
		       json_object *summary)
{
	json_object *data = json_object_new_object(), *ranks = json_object_new_array();
	json_object *series = json_object_new_array(), *times = json_object_new_array();
	json_object *texts = json_object_new_array(), *tree = job_tree__json(p->tree);
	size_t nr_grid = 0;
	double *grid = time_grid(order, nr, &nr_grid);

	for (size_t i = 0; grid && i < nr_grid; i++)
		json_object_array_add(times, json_object_new_double(grid[i]));
	for (size_t i = 0; i < nr; i++) {
		json_object *r = json_object_new_object();

		json_object_object_add(r, "rank", json_object_new_int(order[i]->rank));
		json_object_object_add(r, "pid", json_object_new_int(order[i]->pid));
		json_object_object_add(r, "host", order[i]->host ?
							  json_object_new_string(order[i]->host) :
							  NULL);
		json_object_array_add(ranks, r);
		json_object_array_add(series, grid ? series_json(order[i], grid, nr_grid) :
						     json_object_new_array());
		json_object_array_add(texts, json_object_new_string(order[i]->text));
	}
	free(grid);
	json_object_object_add(data, "summary", summary_without_samples(summary));
	json_object_object_add(data, "ranks", ranks);
	json_object_object_add(data, "time", times);
	json_object_object_add(data, "series", series);
	json_object_object_add(data, "tree", tree);
	html_page__data(out, "heaptap-job", data);
	html_page__data(out, "heaptap-texts", texts);
	json_object_put(data);
	json_object_put(texts);
}

void job_page__write(FILE *out, struct job_page *p, const char *title, json_object *summary)
{
	struct page_process **order = malloc((p->nr ? p->nr : 1) * sizeof(*order));
	size_t nr = 0;

	if (!order) {
		fputs("out of memory\n", out);
		return;
	}
	for (size_t i = 0; i < p->nr; i++)
		order[nr++] = &p->procs[i];
	qsort(order, nr, sizeof(*order), by_rank);

	html_page__begin(out, title);
	fputs("<h1>", out);
	html_text(out, title);
	fputs("</h1>\n<noscript>This page draws its plots and tables with JavaScript: allow "
	      "scripts for this file.</noscript>\n"
	      "<section id=\"summary\"><h2>Summary</h2><div class=\"body\"></div></section>\n"
	      "<section id=\"time\"><h2>Memory over time</h2><p class=\"how\"></p>"
	      "<div class=\"plot\"></div></section>\n"
	      "<section id=\"functions\"><h2>Functions: max across ranks</h2><p class=\"how\">"
	      "</p><div class=\"plot\"></div><div class=\"body\"></div></section>\n"
	      "<section id=\"libraries\"><h2>Libraries</h2><p class=\"how\"></p>"
	      "<div class=\"body\"></div></section>\n"
	      "<section id=\"tree\"><h2>Call tree</h2><p class=\"how\"></p>"
	      "<div class=\"body\"></div></section>\n"
	      "<section id=\"ranks\"><h2>Each rank's report</h2><p class=\"how\"></p>"
	      "<div class=\"body\"></div><pre class=\"text\" hidden></pre></section>\n", out);
	write_data(out, p, order, nr, summary);
	html_page__end(out, HTML_SCRIPT_JOB);
	free(order);
}

void job_page__free(struct job_page *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr; i++) {
		free(p->procs[i].host);
		free(p->procs[i].text);
		free(p->procs[i].t);
		free(p->procs[i].current);
	}
	free(p->procs);
	job_tree__free(p->tree);
	free(p);
}
