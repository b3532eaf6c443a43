/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What a process held when the OOM killer chose it: its owner total and the allocation
 * sites that held the most at that moment (the owner view, owner.h, copied then: the
 * process's last calls before its death must not change the answer), and its memory
 * cgroup's figures read as the event arrives.
 */
#ifndef HEAPTAP_OOM_RECORD_H
#define HEAPTAP_OOM_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include "cgroup_memory.h"
#include "owner.h"

/* Sites kept: the reports name the first few; the rest held less than the last kept. */
#define OOM_SITES 32

struct oom_site {
	uint32_t site; /* its index in the owner's sites */
	uint64_t blocks, bytes;
};

struct oom_record {
	bool killed;	 /* chosen by the OOM killer */
	double seconds;	 /* when, seconds into tracing (the kernel's clock, exact) */
	uint64_t blocks, bytes; /* the owner total then */
	struct oom_site sites[OOM_SITES];
	uint32_t nr_sites;
	struct cgroup_memory cgroup; /* version 0: none found */
};

/* Record o's view now (again, if the killer chooses the process twice: the last stays). */
void oom_record__take(struct oom_record *r, const struct owner *o, double seconds);

#endif
