/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A process of a JSON report as DMATP's text: overall, per thread, per library, per function
 * within its library (the sections of report_text.c, from what the JSON keeps).
 */
#ifndef HEAPTAP_RANK_TEXT_H
#define HEAPTAP_RANK_TEXT_H

#include <stdio.h>
#include <json-c/json.h>

/* Fields missing from the process print as 0 or are left out. */
void rank_text(FILE *out, json_object *process);

#endif
