/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* heaptap top's full-screen view (ncurses): a table of processes, and one opened. */
#ifndef HEAPTAP_TOP_VIEW_H
#define HEAPTAP_TOP_VIEW_H

#include <stdbool.h>
#include "session.h"

struct top_view;

/* Take over the terminal. NULL when it cannot (no terminal, no terminfo). */
struct top_view *top_view__new(double interval);
/* Give the terminal back. Accepts NULL. */
void top_view__free(struct top_view *v);

/* Handle the keys typed since the last call; false once the user quits. */
bool top_view__keys(struct top_view *v, struct session *s);
/* A key or a resize asks for a redraw before the next refresh. */
bool top_view__wants_redraw(const struct top_view *v);
void top_view__draw(struct top_view *v, struct session *s);

#endif
