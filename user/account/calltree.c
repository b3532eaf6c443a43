// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "attribution.h"
#include "calltree.h"

struct calltree_node *calltree__child(struct calltree *t, struct calltree_node *parent,
				      const char *library, const char *function)
{
	struct calltree_node **siblings = parent ? &parent->children : &t->roots, *n;
	const char *lib = strpool__intern(&t->names, library);
	const char *fn = strpool__intern(&t->names, function);

	if (!lib || !fn)
		return NULL;
	struct calltree_node probe = { .key = { lib, fn } };

	HASH_FIND(hh, *siblings, &probe.key, sizeof(probe.key), n);
	if (n)
		return n;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->key = probe.key;
	n->parent = parent;
	n->depth = parent ? parent->depth + 1 : 1;
	HASH_ADD(hh, *siblings, key, sizeof(n->key), n);
	t->nr_nodes++;
	t->bytes += sizeof(*n);
	return n;
}

/*
 * Where the program's frames end: below the innermost start-up frame (main's caller, a
 * thread's start), as the attribution rule has it. nr when the stack reached none.
 */
static size_t program_bottom(const struct stack_frame *frames, size_t nr)
{
	for (size_t i = 1; i < nr; i++) {
		if (is_startup_symbol(frames[i].function))
			return i;
	}
	return nr;
}

struct calltree_path *calltree__path_of(struct calltree *t, const struct stack_frame *frames,
					size_t nr, bool complete)
{
	size_t bottom = program_bottom(frames, nr);
	struct calltree_node *node = NULL;
	struct calltree_path *p;

	if (bottom == nr)
		complete = false;
	p = malloc(sizeof(*p) + (bottom + 1) * sizeof(p->nodes[0]));
	if (!p)
		return NULL;
	p->nr = 0;
	/* Where a cut stack's outermost frame is, is chance: keep those apart. */
	if (!complete && !(node = p->nodes[p->nr++] = calltree__child(t, NULL, "",
									 CALLTREE_INCOMPLETE)))
		goto fail;
	for (size_t i = bottom; i-- > 1;) {
		node = calltree__child(t, node, frames[i].library, frames[i].function);
		if (!node)
			goto fail;
		p->nodes[p->nr++] = node;
	}
	p->next = t->paths;
	t->paths = p;
	t->nr_paths++;
	t->bytes += sizeof(*p) + p->nr * sizeof(p->nodes[0]);
	return p;
fail:
	free(p);
	return NULL;
}

/* Add src's subtree below into (the same name), node by node. */
static int merge_into(struct calltree *t, struct calltree_node *into,
		      const struct calltree_node *src)
{
	const struct calltree_node *c, *tmp;

	balance__add(&into->bal, &src->bal);
	into->merged++;
	HASH_ITER(hh, src->children, c, tmp) {
		struct calltree_node *n = calltree__child(t, into, c->key.library,
							  c->key.function);

		if (!n || merge_into(t, n, c))
			return -ENOMEM;
	}
	return 0;
}

static int find_occurrences(const struct calltree_node *siblings, const char *function,
			    struct calltree *out)
{
	const struct calltree_node *n, *tmp;

	HASH_ITER(hh, siblings, n, tmp) {
		struct calltree_node *root;

		if (strcmp(n->key.function, function)) {
			if (find_occurrences(n->children, function, out))
				return -ENOMEM;
			continue;
		}
		/* Below it, an occurrence is already counted in this one. */
		root = calltree__child(out, NULL, n->key.library, n->key.function);
		if (!root || merge_into(out, root, n))
			return -ENOMEM;
	}
	return 0;
}

int calltree__under(const struct calltree *t, const char *function, struct calltree *out)
{
	int err = find_occurrences(t->roots, function, out);

	if (err)
		calltree__clear(out);
	return err;
}

static int by_max(struct calltree_node *a, struct calltree_node *b)
{
	if (a->bal.max != b->bal.max)
		return a->bal.max < b->bal.max ? 1 : -1;
	return strcmp(a->key.function, b->key.function);
}

static void sort_level(struct calltree_node **siblings)
{
	struct calltree_node *n, *tmp;

	HASH_SORT(*siblings, by_max);
	HASH_ITER(hh, *siblings, n, tmp)
		sort_level(&n->children);
}

void calltree__sort(struct calltree *t)
{
	sort_level(&t->roots);
}

static void free_level(struct calltree_node **siblings)
{
	struct calltree_node *n, *tmp;

	HASH_ITER(hh, *siblings, n, tmp) {
		free_level(&n->children);
		HASH_DEL(*siblings, n);
		free(n);
	}
}

void calltree__drop_paths(struct calltree *t)
{
	while (t->paths) {
		struct calltree_path *p = t->paths;

		t->paths = p->next;
		t->bytes -= sizeof(*p) + p->nr * sizeof(p->nodes[0]);
		free(p);
	}
	t->nr_paths = 0;
}

void calltree__clear(struct calltree *t)
{
	free_level(&t->roots);
	calltree__drop_paths(t);
	strpool__clear(&t->names);
	memset(t, 0, sizeof(*t));
}
