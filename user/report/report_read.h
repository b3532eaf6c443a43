/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A JSON report file read back, for every reader of reports (report, compare, the job). */
#ifndef HEAPTAP_REPORT_READ_H
#define HEAPTAP_REPORT_READ_H

#include <stddef.h>
#include <json-c/json.h>
#include "report_scan.h"

/*
 * The report in path: its one JSON object, or of top -b --json's snapshots (one a line)
 * the last whole one. Before parsing, each process's field keep is cut out into cut and
 * the fields named in drop made null (report_scan__cut); the last snapshot's processes'
 * kept fields start at cut->kept[*first] (first may be NULL). NULL after one logged line;
 * give says what to give instead of a file that is not JSON or is cut short.
 */
json_object *report_read_last(const char *path, const char *keep, const char *const drop[],
			      const char *give, struct report_cut *cut, size_t *first);
/* The same of a report already in memory (text, size bytes, named name), changed in place. */
json_object *report_parse_last(char *text, size_t size, const char *name, const char *keep,
			       const char *const drop[], const char *give, struct report_cut *cut,
			       size_t *first);

#endif
