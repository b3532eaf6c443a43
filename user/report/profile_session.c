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

/* What one thread's blocks of an allocation site did: allocated, hold now, held at the peak. */
static void thread_figures(const struct owner *o, const struct owner_thread *t,
			   int64_t *values)
{
	values[PROFILE_ALLOC_BLOCKS] = (int64_t)t->allocated_blocks;
	values[PROFILE_ALLOC_BYTES] = (int64_t)t->allocated_bytes;
	values[PROFILE_INUSE_BLOCKS] = (int64_t)t->blocks;
	values[PROFILE_INUSE_BYTES] = (int64_t)t->bytes;
	values[PROFILE_PEAK_BLOCKS] = (int64_t)owner_thread__peak_blocks(o, t);
	values[PROFILE_PEAK_BYTES] = (int64_t)owner_thread__peak_bytes(o, t);
}

#define OWNER_FIGURES                                                                        \
	(PROFILE_VALUE(PROFILE_ALLOC_BLOCKS) | PROFILE_VALUE(PROFILE_ALLOC_BYTES) |           \
	 PROFILE_VALUE(PROFILE_INUSE_BLOCKS) | PROFILE_VALUE(PROFILE_INUSE_BYTES) |           \
	 PROFILE_VALUE(PROFILE_PEAK_BLOCKS) | PROFILE_VALUE(PROFILE_PEAK_BYTES))

/* The names of the process's threads, as its report names them. */
static int add_thread_names(struct heap_profile *p, const struct target *t)
{
	const struct thread_stats *th, *tmp;

	HASH_ITER(hh, t->stats.threads, th, tmp) {
		if (th->name[0] && heap_profile__set_thread_name(p, t->pid, (int)th->tid, th->name))
			return -ENOMEM;
	}
	return 0;
}

/* One sample per allocation site and thread that allocated there. */
int profile_add_target(struct heap_profile *p, const struct target *t)
{
	const struct owner *o = &t->owner;
	struct profile_labels labels = { .pid = t->pid, .rank = t->mpi.rank };

	if (t->stacks.detailed)
		heap_profile__set_inline_known(p);
	if (o->sample_bytes)
		heap_profile__set_sample_bytes(p, o->sample_bytes);
	/* Site 0 gathers the calls whose stacks were not recorded: no frames. */
	for (uint32_t i = 0; i < o->nr_threads; i++) {
		const struct owner_thread *th = &o->threads[i];
		const struct stack_record *rec = o->sites[th->site].record;
		int64_t values[PROFILE_NR_VALUES];

		thread_figures(o, th, values);
		if (!values[PROFILE_ALLOC_BLOCKS] && !values[PROFILE_INUSE_BLOCKS] &&
		    !values[PROFILE_PEAK_BLOCKS])
			continue; /* nothing unrecorded, or memory never short */
		labels.tid = (int)th->tid;
		if (heap_profile__add(p, &labels, rec ? rec->frames : NULL, rec ? rec->nr : 0,
				      values, OWNER_FIGURES))
			return -ENOMEM;
	}
	return add_thread_names(p, t);
}

int profile_from_session(struct session *s, struct heap_profile *p)
{
	struct target **targets;
	size_t n = session__targets(s, &targets);
	struct timespec wall;

	clock_gettime(CLOCK_REALTIME, &wall);
	heap_profile__set_time(p, wall.tv_sec + wall.tv_nsec / 1e9, 0);
	for (size_t i = 0; i < n; i++) {
		if (profile_add_target(p, targets[i]))
			return -ENOMEM;
	}
	return add_build_ids(s, p);
}
