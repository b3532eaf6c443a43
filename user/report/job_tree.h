/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The call trees of a job's ranks as one: each path any rank took, with the min, median and
 * max over the ranks that took it of the path's max bytes, and the rank of that max
 * (report --html's call tree).
 */
#ifndef HEAPTAP_JOB_TREE_H
#define HEAPTAP_JOB_TREE_H

#include <json-c/json.h>

struct job_tree;

struct job_tree *job_tree__new(void);
/* The nodes of processes[].calltree of one process, labelled rank. 0, or -ENOMEM. */
int job_tree__add(struct job_tree *t, json_object *calltree, int rank);
/*
 * The same from the text of the calltree of a report of either schema (f: report_frames.h;
 * report_scan.h cuts it out). 0, -EINVAL or -ENOMEM.
 */
struct report_frames;
int job_tree__add_report(struct job_tree *t, const char *calltree,
			 const struct report_frames *f, int rank);
/*
 * { "libraries": [name...], "nodes": [[parent, function, library, min, median, max,
 * rank_of_max, ranks], ...] }: parents before children (parent -1 for a root), library an
 * index into libraries, ranks how many took the path. NULL when out of memory.
 */
json_object *job_tree__json(struct job_tree *t);
void job_tree__free(struct job_tree *t);

#endif
