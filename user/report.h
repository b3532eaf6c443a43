/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The end-of-run reports: DMATP's text sections, and JSON in the schema "heaptap": 1. */
#ifndef HEAPTAP_REPORT_H
#define HEAPTAP_REPORT_H

#include <stdio.h>
#include "session.h"

void report_text(FILE *out, struct session *s);
/* The processes only, without what unwinding cost (top -b snapshots). */
void report_text_processes(FILE *out, struct session *s);
/* 0 or -errno. */
int report_json(const char *path, struct session *s);
/*
 * Every distinct stack of every process as JSON lines (--stacks): pid, calls, complete,
 * frames (innermost first: library, offset, function). 0 or -errno.
 */
int report_stacks(const char *path, struct session *s);
/* The same report on one line (top -b --json). */
void report_json_line(FILE *out, struct session *s);

#endif
