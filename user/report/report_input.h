/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Reports read back (heaptap report, heaptap compare): the processes of a report heaptap
 * wrote, with their totals and call trees.
 */
#ifndef HEAPTAP_REPORT_INPUT_H
#define HEAPTAP_REPORT_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include "accountant.h"
#include "calltree.h"
#include <json-c/json.h>
#include "heap_profile.h"

struct loaded_process {
	int pid, rank, world_size; /* rank, world_size: -1 when not an MPI rank */
	char *command;
	struct balance total;
	uint64_t sample_bytes; /* --sample-bytes R: its figures are estimates (0: exact) */
	bool has_tree; /* the report carried a calltree (older ones did not) */
	struct calltree tree;
};

struct loaded_report {
	const char *path;
	char *attribution;
	size_t nr;
	struct loaded_process *processes;
	/* Every process's owner figures, labeled (with_profile only; empty in older reports). */
	struct heap_profile *profile;
};

/*
 * Read a JSON report heaptap wrote (schema "heaptap": 1). 0, or -errno after one line on
 * standard error that says what is wrong with the file.
 */
int loaded_report__read_json(const char *path, struct loaded_report *out);
/* The same, and the owner figures of every process into out->profile (--pprof, --folded). */
int loaded_report__read_json_with_profile(const char *path, struct loaded_report *out);
void loaded_report__clear(struct loaded_report *r);
/* A report's BAL (current, min, max, requested, calls) from o: false when malformed. */
bool report_input_balance(json_object *o, struct balance *b);

#endif
