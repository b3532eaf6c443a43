/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Allocator APIs beyond the malloc family (--allocator): their probes in each traced
 * process, wherever an object defines their functions, and the accounts of their calls:
 * one per API, with its thread, library and function groups under the session's
 * attribution rule. Their blocks live in the process's one live-block table (owner.h),
 * keyed apart from the malloc family's: a pool's block may share its address with the
 * malloc'd chunk it lies in.
 */
#ifndef HEAPTAP_CUSTOM_ALLOCS_H
#define HEAPTAP_CUSTOM_ALLOCS_H

#include <stdbool.h>
#include "accountant.h"
#include "alloc_spec.h"
#include "heaptap_types.h"
#include "procmaps.h"

#define CUSTOM_ALLOCS_MAX 8 /* --allocator options */

struct symcache;
struct target;
struct tracer;

/* The --allocator APIs, and where their probes and names come from. */
struct custom_apis {
	struct tracer *tracer;
	struct symcache *cache;
	const struct alloc_spec *specs;
	size_t nr;
};

/* One API's account in one process. */
struct custom_account {
	const struct alloc_spec *spec;
	const char *library; /* the first object found defining one of its functions */
	struct process_stats stats;
	uint64_t freed_unknown; /* frees of blocks never seen allocated (before tracing) */
};

struct custom_allocs; /* a process's */

/*
 * Probe the functions of specs[0..nr) that the objects mapped in maps define and are not
 * probed yet. The first time, every function must be found: otherwise *problem gets one
 * line ("FILE:LINE: FUNCTION: ...") and -ENOENT is returned. 0 or -errno.
 */
int custom_allocs__probe(const struct custom_apis *s, struct target *t,
			 const struct procmaps *maps, char *problem, size_t problem_len);
/* One call event of t's. */
void custom_allocs__on_call(struct target *t, const struct ht_custom_event *ev);
void custom_allocs__free(struct custom_allocs *c);

/* t's accounts, in --allocator order: nr of them (0 without --allocator). */
struct custom_account *custom_allocs__accounts(struct custom_allocs *c, size_t *nr);

/*
 * heaptap report DB: an account read back, named name, of library (NULL: none), after the
 * accounts of *c (made if NULL). NULL when out of memory or past CUSTOM_ALLOCS_MAX.
 */
struct custom_account *custom_allocs__add_stored(struct custom_allocs **c, const char *name,
						 const char *library);

/* The kind's calls are counted in this entry point's slot of struct balance. */
enum ht_func custom_allocs__slot(enum spec_kind kind);

#endif
