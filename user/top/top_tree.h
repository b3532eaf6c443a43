/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* heaptap top's tree tab: an opened process's call tree, its nodes expanded and collapsed. */
#ifndef HEAPTAP_TOP_TREE_H
#define HEAPTAP_TOP_TREE_H

#include <stdbool.h>
#include "calltree.h"

struct top_tree;

struct top_tree *top_tree__new(void);
void top_tree__free(struct top_tree *tt);
/* Another process is opened: nothing is expanded, the first row is selected. */
void top_tree__reset(struct top_tree *tt);
/* Draw the tree's visible rows from screen row first to row last (exclusive). */
void top_tree__draw(struct top_tree *tt, const struct calltree *t, int first, int last);
/* A key for the tab (Up, Down, Enter, Space, +, -): true if it took it. */
bool top_tree__key(struct top_tree *tt, int key);

#endif
