// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "calltree.h"

TestSuite(calltree);

#define LIB "/usr/lib/libx.so"
#define EXE "/bin/app"

/* A stack as the symbolizer records it: the allocator first, then the callers outwards. */
static struct calltree_path *path_of(struct calltree *t, const char *const *names, size_t nr,
				     bool complete)
{
	struct stack_frame frames[32];

	cr_assert(nr <= 32);
	for (size_t i = 0; i < nr; i++) {
		frames[i] = (struct stack_frame){
			.library = i == 0 || strncmp(names[i], "lib", 3) ? EXE : LIB,
			.offset = 0x1000 + i,
			.function = names[i],
		};
	}
	return calltree__path_of(t, frames, nr, complete);
}

static struct calltree_node *node_at(struct calltree *t, const char *const *names, size_t nr)
{
	struct calltree_node *n = NULL;

	for (size_t i = 0; i < nr; i++) {
		struct calltree_node *siblings = n ? n->children : t->roots, *c, *tmp;

		n = NULL;
		HASH_ITER(hh, siblings, c, tmp) {
			if (!strcmp(c->key.function, names[i]))
				n = c;
		}
		if (!n)
			return NULL;
	}
	return n;
}

Test(calltree, a_call_charges_each_prefix_of_its_path_from_main)
{
	struct calltree t = {};
	const char *stack[] = { "malloc", "lib_grab", "lib_init", "main", "__libc_start_call_main",
				"__libc_start_main", "_start" };
	struct calltree_path *p = path_of(&t, stack, 7, true);
	const char *init[] = { "main", "lib_init" }, *grab[] = { "main", "lib_init", "lib_grab" };

	cr_assert(p != NULL);
	cr_assert(eq(u32, p->nr, 3), "main, lib_init, lib_grab: start-up and malloc are not nodes");
	calltree__charge(p, HT_MALLOC, 48, 40, 1);
	cr_assert(eq(sz, t.nr_nodes, 3));
	cr_assert(eq(i64, node_at(&t, init, 2)->bal.current, 48));
	cr_assert(eq(i64, node_at(&t, grab, 3)->bal.max, 48));
	cr_assert(eq(u64, node_at(&t, grab, 3)->bal.requested, 40));
	cr_assert(eq(u64, node_at(&t, init, 1)->bal.calls[HT_MALLOC], 1));
	cr_assert(eq(u32, node_at(&t, grab, 3)->depth, 3));
	cr_assert(eq(str, (char *)node_at(&t, grab, 3)->key.library, LIB));
	calltree__clear(&t);
}

Test(calltree, a_recursive_function_is_charged_once_per_node)
{
	struct calltree t = {};
	const char *stack[] = { "malloc", "walk", "walk", "walk", "main", "_start" };
	struct calltree_path *p = path_of(&t, stack, 6, true);
	const char *deep[] = { "main", "walk", "walk", "walk" };

	cr_assert(eq(u32, p->nr, 4));
	calltree__charge(p, HT_MALLOC, 32, 24, 1);
	for (size_t depth = 1; depth <= 4; depth++) {
		struct calltree_node *n = node_at(&t, deep, depth);

		cr_assert(eq(i64, n->bal.current, 32), "depth %zu", depth);
		cr_assert(eq(u64, n->bal.calls[HT_MALLOC], 1), "depth %zu", depth);
	}
	calltree__clear(&t);
}

Test(calltree, min_and_max_follow_the_order_of_the_calls_at_each_node)
{
	struct calltree t = {};
	const char *a[] = { "malloc", "lib_a", "main", "_start" };
	const char *b[] = { "free", "lib_b", "main", "_start" };
	struct calltree_path *pa = path_of(&t, a, 4, true), *pb = path_of(&t, b, 4, true);
	const char *main_[] = { "main" }, *na[] = { "main", "lib_a" }, *nb[] = { "main", "lib_b" };

	/* a allocates 100, b frees 100 (flow semantics), a allocates 50. */
	calltree__charge(pa, HT_MALLOC, 100, 100, 1);
	calltree__charge(pb, HT_FREE, -100, 0, 1);
	calltree__charge(pa, HT_MALLOC, 50, 50, 1);
	cr_assert(eq(i64, node_at(&t, main_, 1)->bal.max, 100), "main's max is at the first call");
	cr_assert(eq(i64, node_at(&t, main_, 1)->bal.current, 50));
	cr_assert(eq(i64, node_at(&t, main_, 1)->bal.min, 0));
	cr_assert(eq(i64, node_at(&t, na, 2)->bal.max, 150));
	cr_assert(eq(i64, node_at(&t, nb, 2)->bal.min, -100));
	cr_assert(eq(i64, node_at(&t, nb, 2)->bal.max, 0));
	calltree__clear(&t);
}

Test(calltree, the_same_stack_twice_shares_its_nodes)
{
	struct calltree t = {};
	const char *s1[] = { "malloc", "lib_a", "main", "_start" };
	const char *s2[] = { "calloc", "lib_a", "main", "_start" };
	struct calltree_path *p1 = path_of(&t, s1, 4, true), *p2 = path_of(&t, s2, 4, true);

	cr_assert(eq(ptr, p1->nodes[1], p2->nodes[1]));
	cr_assert(eq(sz, t.nr_nodes, 2));
	cr_assert(eq(sz, t.nr_paths, 2));
	calltree__clear(&t);
}

Test(calltree, a_thread_starts_at_its_start_routine)
{
	struct calltree t = {};
	const char *stack[] = { "malloc", "lib_work", "lib_thread_main", "start_thread", "clone3" };
	struct calltree_path *p = path_of(&t, stack, 5, true);

	cr_assert(eq(u32, p->nr, 2));
	cr_assert(eq(str, (char *)p->nodes[0]->key.function, "lib_thread_main"));
	calltree__clear(&t);
}

Test(calltree, incomplete_stacks_have_a_root_of_their_own)
{
	struct calltree t = {};
	const char *stack[] = { "malloc", "lib_grab", "lib_init" };
	struct calltree_path *p = path_of(&t, stack, 3, false);

	cr_assert(eq(u32, p->nr, 3));
	cr_assert(eq(str, (char *)p->nodes[0]->key.function, CALLTREE_INCOMPLETE));
	cr_assert(eq(str, (char *)p->nodes[1]->key.function, "lib_init"));
	calltree__clear(&t);
}

Test(calltree, under_merges_a_function_wherever_it_is_called)
{
	struct calltree t = {}, u = {};
	const char *s1[] = { "malloc", "lib_leaf", "lib_f", "lib_x", "main", "_start" };
	const char *s2[] = { "malloc", "lib_leaf", "lib_f", "lib_y", "main", "_start" };
	/* f below f: its calls are in the outer f already. */
	const char *s3[] = { "malloc", "lib_f", "lib_f", "lib_y", "main", "_start" };
	const char *f[] = { "lib_f" }, *leaf[] = { "lib_f", "lib_leaf" }, *ff[] = { "lib_f", "lib_f" };

	calltree__charge(path_of(&t, s1, 6, true), HT_MALLOC, 10, 10, 1);
	calltree__charge(path_of(&t, s2, 6, true), HT_MALLOC, 20, 20, 1);
	calltree__charge(path_of(&t, s3, 6, true), HT_MALLOC, 30, 30, 1);
	cr_assert(eq(int, calltree__under(&t, "lib_f", &u), 0));
	cr_assert(eq(sz, HASH_COUNT(u.roots), 1));
	cr_assert(eq(i64, node_at(&u, f, 1)->bal.current, 60), "each call once");
	cr_assert(eq(u64, node_at(&u, f, 1)->bal.calls[HT_MALLOC], 3));
	cr_assert(eq(u32, node_at(&u, f, 1)->merged, 2), "two places");
	cr_assert(eq(i64, node_at(&u, leaf, 2)->bal.current, 30));
	cr_assert(eq(i64, node_at(&u, ff, 2)->bal.current, 30));
	calltree__clear(&u);
	cr_assert(eq(int, calltree__under(&t, "nowhere", &u), 0));
	cr_assert(u.roots == NULL);
	calltree__clear(&t);
}

Test(calltree, sorted_by_max)
{
	struct calltree t = {};
	const char *small[] = { "malloc", "lib_small", "main", "_start" };
	const char *big[] = { "malloc", "lib_big", "main", "_start" };

	calltree__charge(path_of(&t, small, 4, true), HT_MALLOC, 10, 10, 1);
	calltree__charge(path_of(&t, big, 4, true), HT_MALLOC, 1000, 1000, 1);
	calltree__sort(&t);
	cr_assert(eq(str, (char *)t.roots->children->key.function, "lib_big"));
	calltree__clear(&t);
}
