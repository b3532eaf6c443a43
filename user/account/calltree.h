/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The inclusive call tree of one process: a node per distinct call path (from the outermost
 * frame above the runtime's start-up down to the allocator's caller), each with the balance
 * and call counts of every call made at or below it. A call charges each node of its path
 * once, so a function that recurs is charged once per node, as the path is. Nodes exist only
 * along stacks that occurred; each distinct stack keeps its list of nodes (a path), so a call
 * costs one balance update per frame.
 */
#ifndef HEAPTAP_CALLTREE_H
#define HEAPTAP_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uthash.h>
#include "accountant.h"
#include "stack_records.h"
#include "strpool.h"

/* The root of the calls whose stack did not reach a start-up frame. */
#define CALLTREE_INCOMPLETE "[incomplete stack]"

struct calltree_node {
	struct {
		const char *library, *function; /* interned in the tree: compared as pointers */
	} key;
	struct calltree_node *parent;	/* NULL for a root */
	struct calltree_node *children; /* by key */
	struct balance bal;
	uint32_t depth;	 /* 1 for a root */
	uint32_t merged; /* occurrences summed into it by calltree__under: > 1, min and max are
			  * the sums of theirs (bounds, not exact) */
	UT_hash_handle hh;
};

/* The nodes one distinct stack charges, outermost first. */
struct calltree_path {
	struct calltree_path *next; /* the tree's list, to free them */
	uint32_t nr;
	struct calltree_node *nodes[];
};

struct calltree {
	struct calltree_node *roots;
	struct calltree_path *paths;
	struct strpool names;
	size_t nr_nodes, nr_paths;
	size_t bytes; /* of nodes and paths (the names are shared with other trees' pools) */
};

/*
 * The path of a recorded stack (frames[0] the allocator's entry point, outwards), its
 * nodes created as needed. The tree owns it. NULL when out of memory.
 */
struct calltree_path *calltree__path_of(struct calltree *t, const struct stack_frame *frames,
					size_t nr, bool complete);
/* Charge a call (calls: the calls it stands for) to every node of its path. */
static inline void calltree__charge(const struct calltree_path *p, enum ht_func func,
				    int64_t delta, uint64_t requested, uint64_t calls)
{
	for (uint32_t i = 0; i < p->nr; i++)
		balance__apply(&p->nodes[i]->bal, func, delta, requested, calls);
}

/* The child of parent (NULL: a root) with this name, created if new. NULL if no memory. */
struct calltree_node *calltree__child(struct calltree *t, struct calltree_node *parent,
				      const char *library, const char *function);

/*
 * A new tree in out (empty before) of function's occurrences in t, wherever they are,
 * merged: one root per library defining a function of that name, the subtrees below summed
 * node by node (an occurrence inside another is already in it, and is not added again).
 * 0 or -ENOMEM.
 */
int calltree__under(const struct calltree *t, const char *function, struct calltree *out);

/* Children sorted by max (descending), then by name, at every level. */
void calltree__sort(struct calltree *t);
/* Free the paths (the nodes stay): no stack will be charged again. */
void calltree__drop_paths(struct calltree *t);
void calltree__clear(struct calltree *t);

#endif
