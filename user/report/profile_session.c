// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <time.h>
#include "elfsyms.h"
#include "profile_session.h"
#include "symcache.h"

/* The build id of every file heaptap read symbols from: pprof's mappings carry them. */
static int add_build_ids(struct session *s, struct heap_profile *p)
{
	const struct symcache *cache = session__symcache(s);

	for (const struct object_file *f = symcache__next(cache, NULL); f;
	     f = symcache__next(cache, f)) {
		const char *id = f->syms ? elfsyms__build_id(f->syms) : NULL;

		if (id && heap_profile__set_build_id(p, object_file__name(f), id))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The owner figures of one allocation stack into values: the PROFILE_VALUE bits known, 0
 * when the stack allocated nothing (a free's stack).
 */
static unsigned int site_figures(const struct target *t, const struct stack_record *rec,
				 int64_t *values)
{
	(void)t;
	(void)rec;
	(void)values;
	return 0;
}

int profile_from_session(struct session *s, struct heap_profile *p)
{
	struct target **targets;
	size_t n = session__targets(s, &targets);
	struct timespec wall;

	clock_gettime(CLOCK_REALTIME, &wall);
	heap_profile__set_time(p, wall.tv_sec + wall.tv_nsec / 1e9, 0);
	for (size_t i = 0; i < n; i++) {
		struct profile_labels labels = { .pid = targets[i]->pid,
						 .rank = targets[i]->mpi.rank };
		const struct stack_record *rec, *tmp;

		if (targets[i]->stacks.detailed)
			heap_profile__set_inline_known(p);
		HASH_ITER(hh, targets[i]->stacks.by_key, rec, tmp) {
			int64_t values[PROFILE_NR_VALUES] = { 0 };
			unsigned int known = site_figures(targets[i], rec, values);

			if (known && heap_profile__add(p, &labels, rec->frames, rec->nr, values,
						       known))
				return -ENOMEM;
		}
	}
	return add_build_ids(s, p);
}
