/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A run whose processes were not traced here, as the reports read it: stored by a
 * collector (cluster/store_read.c), or served by one (cluster/viewer.c).
 */
#ifndef HEAPTAP_RUN_MODEL_H
#define HEAPTAP_RUN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "attribution.h"
#include "stored_owner.h"

struct target;

/* What a report says of a process beyond its target: counted by a session, or stored. */
struct process_facts {
	uint64_t lost_events, holds_skipped;
	uint64_t lost_ring_full; /* of lost_events: dropped with its ring full (heaptap behind) */
	const char *host;  /* NULL: a process of this machine, traced here (not said) */
	const char *state; /* NULL, or how it ended but by exit: "agent lost", "detached" */
	uint64_t dropped_messages; /* its agent's updates that never reached the collector */
	const struct stored_owner *owner; /* who held its memory, as stored; NULL: none */
	/* Served by a collector (top --collector): its owner totals, when held_known. */
	bool held_known;
	uint64_t held_blocks, held_bytes, held_peak_bytes;
};

/* The processes of a run not traced here: stored by a collector, or served by one. */
struct report_run {
	enum attribution_rule rule;
	int64_t id;	 /* the collector's run id */
	const char *job; /* NULL when its processes have no job id */
	size_t nr;
	struct target **targets; /* their groups sorted (accountant__sort) */
	const struct process_facts *facts; /* one per target */
};

#endif
