// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "human_bytes.h"
#include "top_tree.h"

/* A node the user expanded; nodes live as long as their process's report. */
struct expanded {
	const struct calltree_node *node;
	UT_hash_handle hh;
};

struct top_tree {
	struct expanded *expanded;
	size_t selected;	  /* among the visible rows */
	size_t top;		  /* the first row shown, to keep the selection on screen */
	size_t nr_rows;		  /* visible at the last draw */
	const struct calltree_node *selected_node;
	bool toggle, collapse; /* asked by a key, done at the next draw (it has the rows) */
};

struct top_tree *top_tree__new(void)
{
	return calloc(1, sizeof(struct top_tree));
}

void top_tree__reset(struct top_tree *tt)
{
	struct expanded *e, *tmp;

	HASH_ITER(hh, tt->expanded, e, tmp) {
		HASH_DEL(tt->expanded, e);
		free(e);
	}
	tt->selected = tt->top = tt->nr_rows = 0;
	tt->selected_node = NULL;
	tt->toggle = tt->collapse = false;
}

void top_tree__free(struct top_tree *tt)
{
	if (!tt)
		return;
	top_tree__reset(tt);
	free(tt);
}

static struct expanded *expansion(struct top_tree *tt, const struct calltree_node *n)
{
	struct expanded *e;

	HASH_FIND_PTR(tt->expanded, &n, e);
	return e;
}

static void set_expanded(struct top_tree *tt, const struct calltree_node *n, bool on)
{
	struct expanded *e = expansion(tt, n);

	if (on && !e && (e = calloc(1, sizeof(*e)))) {
		e->node = n;
		HASH_ADD_PTR(tt->expanded, node, e);
	} else if (!on && e) {
		HASH_DEL(tt->expanded, e);
		free(e);
	}
}

/* The visible rows, in order: each node, and the children of expanded ones. */
struct walk {
	struct top_tree *tt;
	size_t row;
	int first, last;
};

static void draw_level(struct walk *w, const struct calltree_node *siblings, int level)
{
	const struct calltree_node *n, *tmp;

	HASH_ITER(hh, siblings, n, tmp) {
		bool open = expansion(w->tt, n) != NULL;
		int y = w->first + (int)(w->row - w->tt->top);
		char cur[16], max[16];
		uint64_t calls = 0;

		if (w->row == w->tt->selected) {
			w->tt->selected_node = n;
			if (w->tt->toggle || (w->tt->collapse && open)) {
				set_expanded(w->tt, n, !open);
				open = !open;
			}
		}
		for (int f = 0; f < HT_NR_FUNCS; f++)
			calls += n->bal.calls[f];
		if (w->row >= w->tt->top && y < w->last) {
			const char *lib = strrchr(n->key.library, '/');

			if (w->row == w->tt->selected)
				attron(A_REVERSE);
			mvprintw(y, 0, "%8s %8s %10" PRIu64 "  %*s%c %s (%s)",
				 human_bytes(n->bal.max, max, sizeof(max)),
				 human_bytes(n->bal.current, cur, sizeof(cur)), calls, 2 * level, "",
				 !n->children ? ' ' : open ? '-' : '+', n->key.function,
				 lib ? lib + 1 : n->key.library);
			attroff(A_REVERSE);
		}
		w->row++;
		if (open)
			draw_level(w, n->children, level + 1);
	}
}

void top_tree__draw(struct top_tree *tt, const struct calltree *t, int first, int last)
{
	struct walk w = { .tt = tt, .first = first + 1, .last = last };

	attron(A_REVERSE);
	mvprintw(first, 0, "%8s %8s %10s  %s", "MAX", "CURRENT", "CALLS",
		 "FUNCTION (LIBRARY): Enter/+/- expand, collapse");
	attroff(A_REVERSE);
	if (tt->nr_rows && tt->selected >= tt->nr_rows)
		tt->selected = tt->nr_rows - 1;
	if (tt->selected < tt->top)
		tt->top = tt->selected;
	if (last - w.first > 0 && tt->selected >= tt->top + (size_t)(last - w.first))
		tt->top = tt->selected - (last - w.first) + 1;
	tt->selected_node = NULL;
	draw_level(&w, t->roots, 0);
	tt->toggle = tt->collapse = false;
	tt->nr_rows = w.row;
	if (!w.row)
		mvprintw(w.first, 0, "(no call yet)");
}

bool top_tree__key(struct top_tree *tt, int key)
{
	switch (key) {
	case KEY_UP:
		if (tt->selected > 0)
			tt->selected--;
		return true;
	case KEY_DOWN:
		if (tt->selected + 1 < tt->nr_rows)
			tt->selected++;
		return true;
	case KEY_NPAGE:
		tt->selected += LINES / 2;
		return true;
	case KEY_PPAGE:
		tt->selected = tt->selected > (size_t)LINES / 2 ? tt->selected - LINES / 2 : 0;
		return true;
	case '\n':
	case KEY_ENTER:
	case ' ':
		tt->toggle = true;
		return true;
	case '+':
		if (tt->selected_node && !expansion(tt, tt->selected_node))
			set_expanded(tt, tt->selected_node, true);
		return true;
	case '-':
		tt->collapse = true;
		return true;
	default:
		return false;
	}
}
