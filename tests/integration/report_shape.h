/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The tests read reports in one shape: a report of schema 2 (frames by index into the root's
 * "frames", sites naming a node of its "stacks", call-tree nodes as [parent, frame,
 * figures...]) rewritten in place in schema 1's (sites with their frames, frame objects,
 * nodes with their "path" and named figures). "heaptap" stays 2.
 */
#ifndef HEAPTAP_TEST_REPORT_SHAPE_H
#define HEAPTAP_TEST_REPORT_SHAPE_H

#include <json-c/json.h>

/* report as schema 1 has it; a failed assertion when it is not a well-formed schema 2. */
void report_v1_shape(json_object *report);

#endif
