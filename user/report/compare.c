// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "compare.h"
#include "log.h"

int linear_fit(const double *x, const double *y, size_t n, struct linear_fit *out)
{
	/* Sums of whole bytes and process counts are exact in long double. */
	long double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, den, ss_res = 0, ss_tot;

	for (size_t i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += (long double)x[i] * x[i];
		sxy += (long double)x[i] * y[i];
		syy += (long double)y[i] * y[i];
	}
	den = n * sxx - sx * sx;
	if (n < 2 || den <= 0)
		return -EINVAL;
	out->b = (double)((n * sxy - sx * sy) / den);
	out->a = (double)((sy - (long double)out->b * sx) / n);
	ss_tot = syy - sy * sy / n;
	for (size_t i = 0; i < n; i++) {
		long double r = y[i] - (out->a + (long double)out->b * x[i]);

		ss_res += r * r;
	}
	out->r2 = ss_tot > 0 ? (double)(1 - ss_res / ss_tot) : 1;
	if (out->r2 < 0)
		out->r2 = 0;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The values of one row, per process count, one per rank that has the node. */
struct samples {
	double *current, *max;
	size_t n;
};

struct row_entry {
	char *key; /* "library\0function\0" per level */
	size_t key_len;
	struct compare_row row;
	struct samples *samples; /* [nr_sizes] */
	UT_hash_handle hh;
};

/* What the runs are: a process count each, and how many ranks reported for it. */
struct sizes {
	int world_size[64];
	size_t ranks[64];
	size_t nr;
};

static bool is_rank_run(const struct loaded_report *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		if (r->processes[i].rank >= 0)
			return true;
	}
	return false;
}

/* Does p count in the report's run, and at which process count? */
static bool counts(const struct loaded_report *r, const struct loaded_process *p, int *size)
{
	bool ranks = is_rank_run(r);

	if (ranks && p->rank < 0)
		return false;
	*size = ranks && p->world_size > 0 ? p->world_size : 0;
	if (!*size) {
		for (size_t i = 0; i < r->nr; i++)
			*size += !ranks || r->processes[i].rank >= 0;
	}
	return true;
}

static int size_index(struct sizes *s, int world_size, bool add)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (s->world_size[i] == world_size)
			return i;
	}
	if (!add || s->nr == 64)
		return -1;
	/* Kept in increasing order. */
	for (i = s->nr; i > 0 && s->world_size[i - 1] > world_size; i--) {
		s->world_size[i] = s->world_size[i - 1];
		s->ranks[i] = s->ranks[i - 1];
	}
	s->world_size[i] = world_size;
	s->ranks[i] = 0;
	s->nr++;
	return i;
}

/*
 * Below each entry function: on each path from main, the first function outside main's
 * file (DMATP's entry rule); a thread's start routine in a library is one itself.
 */
static int entry_view(const struct calltree *t, struct calltree *out)
{
	const struct calltree_node *root, *tmp, *n;
	const char *exe = NULL;
	int err = 0;

	HASH_ITER(hh, t->roots, root, tmp) {
		if (!strcmp(root->key.function, "main"))
			exe = root->key.library;
	}
	HASH_ITER(hh, t->roots, root, tmp) {
		if (!strcmp(root->key.function, CALLTREE_INCOMPLETE))
			continue;
		/* Depth first, down to the entry functions. */
		const struct calltree_node *stack[256];
		size_t sp = 0;

		stack[sp++] = root;
		while (sp && !err) {
			const struct calltree_node *c, *ctmp;

			n = stack[--sp];
			if (!exe || n->key.library != exe) {
				bool known = false;

				for (c = out->roots; c && !known; c = c->hh.next)
					known = !strcmp(c->key.function, n->key.function);
				if (!known)
					err = calltree__under(t, n->key.function, out);
				continue;
			}
			HASH_ITER(hh, n->children, c, ctmp) {
				if (sp < 256)
					stack[sp++] = c;
			}
		}
	}
	return err;
}

static struct row_entry *row_of(struct row_entry **rows, const struct calltree_node **path,
				size_t depth, size_t nr_sizes)
{
	size_t len = 0, at = 0;
	struct row_entry *e;
	char *key;

	for (size_t i = 0; i < depth; i++)
		len += strlen(path[i]->key.library) + strlen(path[i]->key.function) + 2;
	key = malloc(len);
	if (!key)
		return NULL;
	for (size_t i = 0; i < depth; i++) {
		at += sprintf(key + at, "%s", path[i]->key.library) + 1;
		at += sprintf(key + at, "%s", path[i]->key.function) + 1;
	}
	HASH_FIND(hh, *rows, key, len, e);
	if (e) {
		free(key);
		return e;
	}
	e = calloc(1, sizeof(*e));
	if (e)
		e->samples = calloc(nr_sizes, sizeof(*e->samples));
	if (e && e->samples)
		e->row.functions = calloc(depth, sizeof(char *));
	if (e && e->row.functions)
		e->row.libraries = calloc(depth, sizeof(char *));
	if (!e || !e->samples || !e->row.functions || !e->row.libraries) {
		if (e) {
			free(e->samples);
			free(e->row.functions);
		}
		free(e);
		free(key);
		return NULL;
	}
	/* The path's names point into the key. */
	for (size_t i = 0, off = 0; i < depth; i++) {
		e->row.libraries[i] = key + off;
		off += strlen(key + off) + 1;
		e->row.functions[i] = key + off;
		off += strlen(key + off) + 1;
	}
	e->row.depth = depth;
	e->key = key;
	e->key_len = len;
	HASH_ADD_KEYPTR(hh, *rows, e->key, e->key_len, e);
	return e;
}

static int add_sample(struct samples *s, const struct balance *b)
{
	double *cur = realloc(s->current, (s->n + 1) * sizeof(double));

	if (!cur)
		return -ENOMEM;
	s->current = cur;
	cur = realloc(s->max, (s->n + 1) * sizeof(double));
	if (!cur)
		return -ENOMEM;
	s->max = cur;
	s->current[s->n] = b->current;
	s->max[s->n++] = b->max;
	return 0;
}

/* One rank's view, down to depth levels, into the rows of process count index. */
static int add_rank(struct row_entry **rows, const struct calltree_node *siblings,
		    const struct calltree_node **path, size_t level, unsigned depth,
		    size_t index, size_t nr_sizes)
{
	const struct calltree_node *n, *tmp;

	HASH_ITER(hh, siblings, n, tmp) {
		struct row_entry *e;

		path[level] = n;
		e = row_of(rows, path, level + 1, nr_sizes);
		if (!e || add_sample(&e->samples[index], &n->bal))
			return -ENOMEM;
		if (level + 1 < depth &&
		    add_rank(rows, n->children, path, level + 1, depth, index, nr_sizes))
			return -ENOMEM;
	}
	return 0;
}

/* Medians over all the ranks of each count (a rank without the node had 0), and the fit. */
static int finish_row(struct row_entry *e, const struct sizes *sizes)
{
	struct compare_row *r = &e->row;
	double x[64], y[64];

	r->points = calloc(sizes->nr, sizeof(*r->points));
	if (!r->points)
		return -ENOMEM;
	for (size_t i = 0; i < sizes->nr; i++) {
		struct samples *s = &e->samples[i];
		struct compare_point *p = &r->points[i];
		double *cur = calloc(sizes->ranks[i], sizeof(double));
		double *max = calloc(sizes->ranks[i], sizeof(double));

		if (!cur || !max) {
			free(cur);
			free(max);
			return -ENOMEM;
		}
		/* A rank reports a node once: more samples than ranks cannot be. */
		memcpy(cur, s->current, s->n * sizeof(double));
		memcpy(max, s->max, s->n * sizeof(double));
		p->world_size = sizes->world_size[i];
		p->ranks = sizes->ranks[i];
		p->current = median(cur, p->ranks);
		p->current_min = cur[0];
		p->current_max = cur[p->ranks - 1];
		p->max = median(max, p->ranks);
		p->max_min = max[0];
		p->max_max = max[p->ranks - 1];
		free(cur);
		free(max);
		x[i] = p->world_size;
		y[i] = p->max;
	}
	if (linear_fit(x, y, sizes->nr, &r->fit))
		return -EINVAL;
	/* Its growth is a material share of what it holds at the largest count, and real. */
	r->grows = r->fit.b > 0 && r->fit.r2 >= COMPARE_MIN_R2 &&
		   r->fit.b * x[sizes->nr - 1] >= COMPARE_GROWTH_SHARE * y[sizes->nr - 1];
	return 0;
}

static int by_growth(const void *a, const void *b)
{
	const struct compare_row *x = a, *y = b;

	if (x->grows != y->grows)
		return x->grows ? -1 : 1;
	if (x->fit.b != y->fit.b)
		return x->fit.b < y->fit.b ? 1 : -1;
	for (size_t i = 0; i < x->depth && i < y->depth; i++) {
		int c = strcmp(x->functions[i], y->functions[i]);

		if (c)
			return c;
	}
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* The path's names are the entry's key, libraries[0] its start. */
static void free_row(struct compare_row *r)
{
	free(r->libraries[0]);
	free(r->functions);
	free(r->libraries);
	free(r->points);
}

static void free_entry(struct row_entry *e, size_t nr_sizes)
{
	for (size_t i = 0; e->samples && i < nr_sizes; i++) {
		free(e->samples[i].current);
		free(e->samples[i].max);
	}
	free(e->samples);
	free(e);
}

/* Every counted rank's view into the rows. */
static int gather(const struct loaded_report *reports, size_t nr, const char *under,
		  unsigned depth, struct sizes *sizes, struct row_entry **rows)
{
	const struct calltree_node *path[1000];

	for (size_t i = 0; i < nr; i++) {
		for (size_t k = 0; k < reports[i].nr; k++) {
			const struct loaded_process *p = &reports[i].processes[k];
			struct calltree view = {};
			int size, err;

			if (!counts(&reports[i], p, &size))
				continue;
			err = under ? calltree__under(&p->tree, under, &view) :
				      entry_view(&p->tree, &view);
			if (!err)
				err = add_rank(rows, view.roots, path, 0, depth,
					       size_index(sizes, size, false), sizes->nr);
			calltree__clear(&view);
			if (err)
				return err;
		}
	}
	return 0;
}

int comparison__build(const struct loaded_report *reports, size_t nr, const char *under,
		      unsigned depth, struct comparison *out)
{
	struct row_entry *rows = NULL, *e, *tmp;
	struct sizes sizes = {};
	int err = 0;

	*out = (struct comparison){ .under = under, .depth = depth };
	for (size_t i = 0; i < nr; i++) {
		for (size_t k = 0; k < reports[i].nr; k++) {
			const struct loaded_process *p = &reports[i].processes[k];
			int size, index;

			if (!counts(&reports[i], p, &size))
				continue;
			if (!p->has_tree) {
				log_error("%s has no call trees (an older heaptap wrote it): trace "
					  "the run again", reports[i].path);
				return -EINVAL;
			}
			index = size_index(&sizes, size, true);
			if (index < 0) {
				log_error("compare takes at most 64 process counts");
				return -EINVAL;
			}
			sizes.ranks[index]++;
			if (p->sample_bytes) {
				out->nr_sampled++;
				if (p->sample_bytes > out->sample_bytes)
					out->sample_bytes = p->sample_bytes;
			}
		}
	}
	if (sizes.nr < 2) {
		if (sizes.nr)
			log_error("compare needs runs at two or more process counts: these reports "
				  "are all of %d processes", sizes.world_size[0]);
		else
			log_error("compare needs runs at two or more process counts: these reports "
				  "have no process");
		return -EINVAL;
	}
	out->nr_sizes = sizes.nr;
	memcpy(out->world_size, sizes.world_size, sizeof(out->world_size));
	err = gather(reports, nr, under, depth, &sizes, &rows);
	if (!err)
		out->rows = calloc(HASH_COUNT(rows) + 1, sizeof(*out->rows));
	if (!err && !out->rows)
		err = -ENOMEM;
	HASH_ITER(hh, rows, e, tmp) {
		HASH_DEL(rows, e);
		if (!err)
			err = finish_row(e, &sizes);
		if (!err)
			out->rows[out->nr++] = e->row; /* it takes the key, and its points */
		else
			free_row(&e->row);
		free_entry(e, sizes.nr);
	}
	if (err) {
		comparison__clear(out);
		if (err == -ENOMEM)
			log_error("out of memory comparing the reports");
		return err;
	}
	qsort(out->rows, out->nr, sizeof(*out->rows), by_growth);
	return 0;
}

void comparison__clear(struct comparison *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free_row(&c->rows[i]);
	free(c->rows);
	c->rows = NULL;
	c->nr = 0;
}
