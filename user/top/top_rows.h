/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * top -b's text snapshot: the full-screen view's table, a row per process (rank, pid,
 * current and max bytes, call rates, calls, state, command), for a terminal or a log.
 */
#ifndef HEAPTAP_TOP_ROWS_H
#define HEAPTAP_TOP_ROWS_H

#include <stdio.h>
#include "session.h"

/* What each process had called at the last snapshot, for its rates. */
struct top_rows;

struct top_rows *top_rows__new(void);
void top_rows__free(struct top_rows *r);
/* A header line, the columns' names, a row per target (by rank, then pid), a blank line. */
void top_rows__print(struct top_rows *r, FILE *out, struct session *s);

#endif
