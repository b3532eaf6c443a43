// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Reports of gtchild processes read against their own truth (gtchild_report.h). */
#include <stdio.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"
#include "gtchild_report.h"

/*
 * The report's entries for pid that are a gtchild image (not one that ended in an exec,
 * not the launcher's image between fork and exec); how many.
 */
size_t gtchild_entries(json_object *report, pid_t pid, json_object **out, size_t max)
{
	json_object *all[8];
	size_t n = processes_of(report, pid, all, 8), found = 0;

	for (size_t i = 0; i < n; i++) {
		if (!json_flag(all[i], "exec") &&
		    strstr(json_object_get_string(get(all[i], "command")), "gtchild") &&
		    found < max)
			out[found++] = all[i];
	}
	return found;
}

/* The untraced[] entry for pid (NULL if none, or no such array in the report). */
json_object *untraced_entry(json_object *report, pid_t pid)
{
	json_object *untraced = get_opt(report, "untraced");

	return untraced ? find_by_int(untraced, "pid", pid) : NULL;
}

/* Assert that the process of truth_path is in the report once, exact; returns it. */
json_object *expect_exact(json_object *report, const char *truth_path, const char *label)
{
	json_object *truth = load_json(truth_path), *entry[4];
	pid_t pid = json_object_get_int(get(truth, "pid"));
	size_t n = gtchild_entries(report, pid, entry, 4);
	char what[128];

	cr_assert(eq(sz, n, 1), "%s: PID %d is in the report %zu times (once expected)", label, pid,
		  n);
	snprintf(what, sizeof(what), "%s (PID %d)", label, pid);
	assert_libgt_functions(get(entry[0], "functions"), get(truth, "entry_functions"), what);
	json_object_put(truth);
	return entry[0];
}
