/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Who held a process's memory, as a collector stored it (its largest sites, not every
 * one). The reports write it (report/stored_owner_report.c) as the sections "Still
 * allocated at the end" and "At the peak" of heaptap report DB, and as the same
 * "outstanding", "peak", "allocated" and "freed_before_tracing" JSON fields as a run's
 * report.
 */
#ifndef HEAPTAP_STORED_OWNER_H
#define HEAPTAP_STORED_OWNER_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

struct stored_site {
	json_object *frames; /* [{"function", "library"[, "file", "line"]}], entry outwards */
	uint64_t blocks, bytes, requested;
	bool likely_leak;
	double growth_bytes_per_second;
};

struct stored_owner {
	uint64_t blocks, bytes, peak_blocks, peak_bytes;
	struct stored_site *outstanding, *peak, *allocated;
	uint32_t nr_outstanding, nr_peak, nr_allocated;
	bool freed_known; /* the agent sent its frees of blocks allocated before tracing: */
	uint64_t freed_calls, freed_bytes;
	bool freed_bytes_known;
	bool oom_killed; /* chosen by the OOM killer: at oom_time s, holding oom_bytes */
	double oom_time;
	uint64_t oom_blocks, oom_bytes;
	struct stored_site *oom_sites; /* what its sites held then, largest first */
	uint32_t nr_oom;
	json_object *oom_cgroup; /* as the JSON report's oom.cgroup; NULL: none */
};

void stored_owner__free(struct stored_owner *o);
#endif
