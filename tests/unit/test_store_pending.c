// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A round's changed groups: each group once, with the figures of its newest put, in the
 * order first changed. Checked against a plain list kept beside it. In key order for the
 * database: every group once, sorted by (process, kind, a, b).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "store_pending.h"

struct model_group {
	int64_t process, a, b;
	int kind;
	int64_t current, max;
	uint64_t malloc_calls;
	char name[16];
	bool named;
};

static struct model_group *model_find(struct model_group *m, size_t n, int64_t process,
				      int kind, int64_t a, int64_t b)
{
	for (size_t i = 0; i < n; i++) {
		if (m[i].process == process && m[i].kind == kind && m[i].a == a && m[i].b == b)
			return &m[i];
	}
	return NULL;
}

Test(store_pending, keeps_each_group_once_with_its_newest_figures)
{
	enum { PUTS = 200000, MAX_GROUPS = 4 * 50 * 30 };
	struct pending_groups pg = {};
	struct model_group *model = calloc(MAX_GROUPS, sizeof(*model));
	size_t distinct = 0;

	srand(7);
	for (int i = 0; i < PUTS; i++) {
		/* Few processes and names: keys repeat, and hash alike in many ways. */
		int64_t process = rand() % 50 + 1, a = rand() % 6, b = rand() % 5;
		int kind = rand() % 4;
		uint64_t calls[2] = { (uint64_t)i, 3 };
		Heaptap__Balance bal = HEAPTAP__BALANCE__INIT;
		char name[16];
		struct model_group *m;

		bal.current = (int64_t)i - PUTS / 2;
		bal.min = -i;
		bal.max = i;
		bal.requested = (uint64_t)i * 3;
		bal.calls = calls;
		bal.n_calls = 2;
		snprintf(name, sizeof(name), "t%d", rand() % 3);
		struct pending_put put = { kind, a, b, kind == 1 ? name : NULL, &bal };

		cr_assert(eq(int, pending__put(&pg, process, &put, 1), 0));
		m = model_find(model, distinct, process, kind, a, b);
		if (!m) {
			cr_assert(distinct < MAX_GROUPS);
			m = &model[distinct++];
			*m = (struct model_group){ .process = process, .kind = kind, .a = a, .b = b };
		}
		m->current = bal.current;
		m->max = bal.max;
		m->malloc_calls = calls[0];
		m->named = kind == 1;
		snprintf(m->name, sizeof(m->name), "%s", name);
	}
	cr_assert(eq(sz, pg.nr, distinct));
	for (size_t i = 0; i < distinct; i++) {
		const struct pending_group *g = &pg.groups[i];
		const struct model_group *m = &model[i]; /* first changed, first listed */

		cr_assert(g->process == m->process && g->kind == m->kind && g->a == m->a &&
			  g->b == m->b, "group %zu out of order", i);
		cr_expect(eq(i64, g->current, m->current));
		cr_expect(eq(i64, g->max, m->max));
		cr_expect(eq(u64, g->calls[0], m->malloc_calls));
		cr_expect(eq(u64, g->calls[1], 3));
		cr_expect(eq(u64, g->calls[2], 0), "calls not sent are 0");
		if (m->named)
			cr_expect(eq(str, (char *)g->name, (char *)m->name));
		else
			cr_expect(g->name == NULL);
	}
	{
		const struct pending_group **order = pending__in_key_order(&pg);
		bool *seen = calloc(pg.nr, sizeof(*seen));

		cr_assert(order != NULL && seen != NULL);
		for (size_t i = 0; i < pg.nr; i++) {
			const struct pending_group *g = order[i], *p = i ? order[i - 1] : NULL;
			size_t at = (size_t)(g - pg.groups);

			cr_assert(at < pg.nr && !seen[at], "group %zu listed twice", at);
			seen[at] = true;
			if (p)
				cr_assert(p->process < g->process ||
						  (p->process == g->process &&
						   (p->kind < g->kind ||
						    (p->kind == g->kind &&
						     (p->a < g->a || (p->a == g->a && p->b < g->b))))),
					  "groups %zu and %zu out of key order", i - 1, i);
		}
		free(seen);
	}
	/* A new round starts empty and fills the same way. */
	pending__clear(&pg);
	cr_expect(eq(sz, pg.nr, 0));
	{
		Heaptap__Balance bal = HEAPTAP__BALANCE__INIT, newer = HEAPTAP__BALANCE__INIT;
		/* One message may carry a group twice: the later figures win. */
		struct pending_put puts[] = { { 0, 0, 0, NULL, &bal }, { 2, 9, 0, NULL, &bal },
					      { 0, 0, 0, NULL, &newer } };

		bal.current = 42;
		newer.current = 43;
		cr_assert(eq(int, pending__put(&pg, 1, puts, 3), 0));
		cr_expect(eq(sz, pg.nr, 2));
		cr_expect(eq(i64, pg.groups[0].current, 43));
		cr_expect(eq(i64, pg.groups[1].current, 42));
	}
	cr_expect(pending__bytes(&pg) >= pg.nr * sizeof(struct pending_group));
	pending__free(&pg);
	free(model);
}
