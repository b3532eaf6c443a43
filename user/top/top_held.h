/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * heaptap top's "held by" tab: who holds an opened process's memory now, live: its
 * allocation sites by outstanding bytes, each with its growth rate and a short stack.
 */
#ifndef HEAPTAP_TOP_HELD_H
#define HEAPTAP_TOP_HELD_H

#include "session.h"

/* Draw the largest sites of t from screen row first to row last (exclusive). */
void top_held__draw(const struct target *t, int first, int last);

#endif
