/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A stored report's owner figures read into a heap profile: a process's outstanding,
 * peak.sites and allocated lists (schema "heaptap": 1), each entry's frames innermost
 * first as --stacks gives them, labeled with the process's pid and rank (and an entry's
 * tid when the report keeps figures per thread).
 */
#ifndef HEAPTAP_PROFILE_INPUT_H
#define HEAPTAP_PROFILE_INPUT_H

#include <json-c/json.h>
#include "heap_profile.h"

/*
 * Add the figures of process (one of the report's processes) to p. A process without
 * them adds nothing. 0, -ENOMEM, or -EINVAL with *what naming the bad part.
 */
int profile_read_json_process(json_object *process, const struct profile_labels *labels,
			      struct heap_profile *p, const char **what);

#endif
