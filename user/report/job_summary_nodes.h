/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The job summary's "nodes" and "oom_kills" (job_summary_nodes.c; reports.md the shapes). */
#ifndef HEAPTAP_JOB_SUMMARY_NODES_H
#define HEAPTAP_JOB_SUMMARY_NODES_H

#include <stddef.h>
#include <json-c/json.h>
#include "job_input.h"

/* Each host's peak at once, its sites (at most max_sites, 0: all); NULL: no host's known. */
json_object *job_nodes_json(const struct job *j, size_t max_sites);
/* The ranks the OOM killer chose; NULL: none. */
json_object *job_oom_json(const struct job *j, size_t max_sites);

#endif
