/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Reports of tests/targets/gtchild processes, read against the truth each one wrote. */
#ifndef HEAPTAP_TESTS_GTCHILD_REPORT_H
#define HEAPTAP_TESTS_GTCHILD_REPORT_H

#include <stddef.h>
#include <sys/types.h>
#include <json-c/json.h>

/*
 * The report's entries for pid that are a gtchild image (not one that ended in an exec,
 * not the launcher's image between fork and exec); how many.
 */
size_t gtchild_entries(json_object *report, pid_t pid, json_object **out, size_t max);
/* The untraced[] entry for pid (NULL if none, or no such array in the report). */
json_object *untraced_entry(json_object *report, pid_t pid);
/* Assert that the process of truth_path is in the report once, exact; returns it. */
json_object *expect_exact(json_object *report, const char *truth_path, const char *label);

#endif
