/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A whole job's memory across its ranks (heaptap report's summary): what its text, its
 * --json and its --html show, built once as JSON, schema "heaptap_summary": 1.
 *
 * {"heaptap_summary": 1, "attribution": "entry", "run": ID|null, "files": [PATH...],
 *  "job": ID|null, "mpi": true, "ranks": N, "world_size": N|null, "hosts": [HOST...],
 *  "duration": SECONDS|null, "lost_events": N, "incomplete_stacks": N,
 *  "other_processes": N, "untraced": [{"pid", "command", "reason"}],
 *  "total": {"current": STAT, "max": STAT, "calls": STAT},
 *  "outlier_rule": {"figure": "max", "z": 3.5, "min_ratio": 0.1, "median": B, "mad": B},
 *  "outliers": [{"rank", "max", "z"}],
 *  "libraries": [{"library", "ranks", "current": STAT, "max": STAT, "calls": STAT}],
 *  "functions": [{"function", "library", "ranks", "current": STAT, "max": STAT,
 *                 "calls": STAT}],
 *  "peaks": [{"rank", "bytes", "blocks", "sites": [{"frames": [{"function", "library"...}],
 *             "blocks", "bytes"}]}],
 *  "ranks_detail": [{"rank", "pid", "host", "command", "source", "exited", "current",
 *                    "min", "max", "calls", "lost_events", "incomplete_stacks", "outlier",
 *                    "samples": [[t_seconds, current, max], ...]}]}
 * STAT = {"min", "median", "max", "rank_of_min", "rank_of_max"}
 *
 * - ranks: MPI ranks when the processes carry one (other processes, such as mpirun, are
 *   counted in other_processes only); otherwise every process, numbered in order from 0.
 * - current, max: a group's balance (DMATP's mem_size and mem_max) in each rank; a rank
 *   without the group counts 0. calls: its calls of every entry point added up. "ranks":
 *   how many ranks have the group. median: the middle rank's figure, of an even count the
 *   mean of the two middle ones. rank_of_*: the lowest rank among equals.
 * - libraries and functions: sorted by max.max, largest first, then by name; the first
 *   opts->top of them.
 * - outliers: ranks whose total max (peak) is far above the median (job_stats.h), largest
 *   first; z is the modified z-score 0.6745 * (max - median) / mad (null when mad is 0).
 * - peaks: present only when some rank has the owner view: each such rank's sites that
 *   held most at its peak, ranks by peak bytes, largest first.
 * - duration: the last sample's t over the ranks; null without samples. Samples' t count
 *   from the start of tracing (files) or of the collector's run (a database).
 * - hosts: sorted, each once; [] when the reports did not record them (run and attach).
 * Field names are stable: new ones may be added, none renamed.
 */
#ifndef HEAPTAP_JOB_SUMMARY_H
#define HEAPTAP_JOB_SUMMARY_H

#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>
#include "job_input.h"

struct job_summary_opts {
	size_t top;   /* libraries and functions kept: 0 for all */
	size_t sites; /* sites per rank in peaks: 0 for all */
};

/*
 * The sites per rank that --json and --html keep of each rank's peak, those that held
 * most: each comes with its whole stack, and every site of every rank made a 256-rank
 * page four times the size of its reports.
 */
#define JOB_PEAK_SITES 20

/*
 * The summary of job j (job__read) as a new JSON object in the shape above; opts may be
 * NULL (everything). NULL when out of memory. The caller puts the object.
 */
json_object *job_summary_build(const struct job *j, const struct job_summary_opts *opts);

/*
 * The summary's text (heaptap report's default output): the job, the totals per rank, the
 * outliers, then the libraries and functions tables, as many rows as summary holds.
 */
void job_summary_text(FILE *out, json_object *summary);

#endif
