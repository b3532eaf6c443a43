/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A stored owner (account/stored_owner.h) in the reports: JSON fields and text sections. */
#ifndef HEAPTAP_STORED_OWNER_REPORT_H
#define HEAPTAP_STORED_OWNER_REPORT_H

#include <stdio.h>
#include <json-c/json.h>
#include "stored_owner.h"

/*
 * "outstanding" and "peak" added to a process's JSON object p; "allocated" and
 * "freed_before_tracing" too when the agent sent them.
 */
void stored_owner__json(json_object *p, const struct stored_owner *o);
/* The two text sections; allocator: the library whose frames the short stacks skip. */
void stored_owner__text(FILE *out, const struct stored_owner *o, const char *allocator);


#endif
