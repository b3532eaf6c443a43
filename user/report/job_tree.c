// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The union of a job's call trees, with each path's max over the ranks (job_tree.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "compare.h"
#include "job_tree.h"
#include "report_frames.h"
#include "report_scan.h"

struct rank_value {
	int rank;
	double max;
};

struct job_node {
	char *key; /* parent's index, library, function: unique in the tree */
	size_t index, parent; /* parent: (size_t)-1 for a root */
	const char *function, *library; /* inside key */
	struct rank_value *values;
	size_t nr, cap;
	UT_hash_handle hh;
};

struct job_tree {
	struct job_node *by_key;
	struct job_node **nodes; /* by index: parents first, as added */
	size_t nr, cap;
	char *key; /* the key looked up */
	size_t key_cap;
};

struct job_tree *job_tree__new(void)
{
	return calloc(1, sizeof(struct job_tree));
}

static json_object *field(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *str_field(json_object *o, const char *key)
{
	json_object *v = field(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "?";
}

/* The node of parent's child (library, function), made if new; NULL when out of memory. */
static struct job_node *node_of(struct job_tree *t, size_t parent, const char *library,
				const char *function)
{
	size_t llen = strlen(library), flen = strlen(function), hlen, klen;
	struct job_node *n;
	char head[24];

	hlen = snprintf(head, sizeof(head), "%zd", (ssize_t)parent) + 1;
	klen = hlen + llen + 1 + flen;
	if (klen + 1 > t->key_cap) {
		char *key = realloc(t->key, klen + 1);

		if (!key)
			return NULL;
		t->key = key;
		t->key_cap = klen + 1;
	}
	/* The NULs inside keep the parts apart; the key is compared by its length. */
	memcpy(t->key, head, hlen);
	memcpy(t->key + hlen, library, llen + 1);
	memcpy(t->key + hlen + llen + 1, function, flen + 1);
	HASH_FIND(hh, t->by_key, t->key, klen, n);
	if (n)
		return n;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct job_node **nodes = realloc(t->nodes, cap * sizeof(*nodes));

		if (!nodes)
			return NULL;
		t->nodes = nodes;
		t->cap = cap;
	}
	n = calloc(1, sizeof(*n));
	if (!n || !(n->key = malloc(klen + 1))) {
		free(n);
		return NULL;
	}
	memcpy(n->key, t->key, klen + 1);
	n->index = t->nr;
	n->parent = parent;
	n->library = n->key + hlen;
	n->function = n->library + llen + 1;
	t->nodes[t->nr++] = n;
	HASH_ADD_KEYPTR(hh, t->by_key, n->key, klen, n);
	return n;
}

static int add_value(struct job_node *n, int rank, double max)
{
	/* A path a rank reached twice (a report's nodes are unique, so only across processes
	 * of one rank) keeps its larger max. */
	if (n->nr && n->values[n->nr - 1].rank == rank) {
		if (max > n->values[n->nr - 1].max)
			n->values[n->nr - 1].max = max;
		return 0;
	}
	if (n->nr == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 4;
		struct rank_value *v = realloc(n->values, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		n->values = v;
		n->cap = cap;
	}
	n->values[n->nr++] = (struct rank_value){ .rank = rank, .max = max };
	return 0;
}

/* Schema 2's nodes name their parent's index: parents first, each node's own in index[]. */
static int add_rows(struct job_tree *t, const char *text, const struct report_frames *f,
		    int rank)
{
	size_t *index = NULL, n = 0, cap = 0, at = 0, nr;
	int64_t v[CALLTREE_MERGED + 1];
	int got, err = 0;

	while (!err && (got = report_scan__row(text, &at, v, CALLTREE_MERGED + 1, &nr)) > 0) {
		json_object *frame = report_frames__at(f, v[CALLTREE_FRAME]);
		int64_t up = v[CALLTREE_PARENT];
		struct job_node *node;

		if (nr < CALLTREE_MERGED || up < -1 || up >= (int64_t)n)
			return free(index), -EINVAL; /* not parents first: not heaptap's */
		if (n == cap) {
			size_t *more = realloc(index, (cap = cap ? cap * 2 : 1024) * sizeof(*index));

			if (!more) {
				err = -ENOMEM;
				break;
			}
			index = more;
		}
		node = node_of(t, up < 0 ? (size_t)-1 : index[up], str_field(frame, "library"),
			       str_field(frame, "function"));
		if (!node) {
			err = -ENOMEM;
			break;
		}
		index[n++] = node->index;
		err = add_value(node, rank, (double)v[CALLTREE_MAX]);
	}
	free(index);
	return err ? err : got < 0 ? got : 0;
}

int job_tree__add_report(struct job_tree *t, const char *calltree,
			 const struct report_frames *f, int rank)
{
	json_object *tree;
	int err;

	if (!calltree)
		return 0;
	if (f->version > 1)
		return add_rows(t, calltree, f, rank);
	if (!(tree = json_tokener_parse(calltree)))
		return -EINVAL;
	err = job_tree__add(t, tree, rank);
	json_object_put(tree);
	return err;
}

int job_tree__add(struct job_tree *t, json_object *calltree, int rank)
{
	size_t nr = calltree && json_object_is_type(calltree, json_type_array) ?
			    json_object_array_length(calltree) :
			    0;

	for (size_t i = 0; i < nr; i++) {
		json_object *node = json_object_array_get_idx(calltree, i);
		json_object *path = field(node, "path");
		size_t depth = path && json_object_is_type(path, json_type_array) ?
				       json_object_array_length(path) :
				       0;
		size_t parent = (size_t)-1;
		struct job_node *n = NULL;

		/* Each node names its whole path: walk it from the root, making what is new. */
		for (size_t d = 0; d < depth; d++) {
			json_object *fr = json_object_array_get_idx(path, d);

			n = node_of(t, parent, str_field(fr, "library"), str_field(fr, "function"));
			if (!n)
				return -ENOMEM;
			parent = n->index;
		}
		if (n && add_value(n, rank, (double)json_object_get_int64(field(node, "max"))))
			return -ENOMEM;
	}
	return 0;
}

json_object *job_tree__json(struct job_tree *t)
{
	json_object *root = json_object_new_object(), *libs = json_object_new_array();
	json_object *nodes = json_object_new_array(), *lib_index = json_object_new_object();
	double *v = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < t->nr; i++) {
		struct job_node *n = t->nodes[i];
		json_object *row = json_object_new_array(), *li;
		double lo = 0, hi = 0;
		int rank_of_max = -1;

		if (!json_object_object_get_ex(lib_index, n->library, &li)) {
			li = json_object_new_int(json_object_array_length(libs));
			json_object_object_add(lib_index, n->library, li);
			json_object_array_add(libs, json_object_new_string(n->library));
		}
		if (n->nr > cap) {
			double *more = realloc(v, n->nr * sizeof(*v));

			if (!more)
				goto nomem;
			v = more;
			cap = n->nr;
		}
		for (size_t k = 0; k < n->nr; k++) {
			v[k] = n->values[k].max;
			if (!k || v[k] < lo)
				lo = v[k];
			if (!k || v[k] > hi) {
				hi = v[k];
				rank_of_max = n->values[k].rank;
			}
		}
		json_object_array_add(row, json_object_new_int64(n->parent == (size_t)-1 ?
									 -1 :
									 (int64_t)n->parent));
		json_object_array_add(row, json_object_new_string(n->function));
		json_object_array_add(row, json_object_get(li));
		json_object_array_add(row, json_object_new_int64((int64_t)lo));
		json_object_array_add(row, json_object_new_double(n->nr ? median(v, n->nr) : 0));
		json_object_array_add(row, json_object_new_int64((int64_t)hi));
		json_object_array_add(row, json_object_new_int(rank_of_max));
		json_object_array_add(row, json_object_new_int64(n->nr));
		json_object_array_add(nodes, row);
	}
	free(v);
	json_object_put(lib_index);
	json_object_object_add(root, "libraries", libs);
	json_object_object_add(root, "nodes", nodes);
	return root;
nomem:
	free(v);
	json_object_put(lib_index);
	json_object_put(libs);
	json_object_put(nodes);
	json_object_put(root);
	return NULL;
}

void job_tree__free(struct job_tree *t)
{
	struct job_node *n, *tmp;

	if (!t)
		return;
	HASH_ITER(hh, t->by_key, n, tmp) {
		HASH_DEL(t->by_key, n);
		free(n->values);
		free(n->key);
		free(n);
	}
	free(t->nodes);
	free(t->key);
	free(t);
}
