// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Each call's blocks into its process's owner figures (owner.h), and their samples. */
#include <unistd.h>
#include "session_owner.h"

/* The alignment a call asked for, for the allocator's usable size. */
static uint64_t alignment_of(const struct ht_call_event *ev, enum ht_func func)
{
	switch (func) {
	case HT_MEMALIGN:
	case HT_ALIGNED_ALLOC:
		return ev->args[0];
	case HT_POSIX_MEMALIGN:
		return ev->args[1];
	case HT_VALLOC:
	case HT_PVALLOC:
		return (uint64_t)sysconf(_SC_PAGESIZE);
	default:
		return 0;
	}
}

/*
 * Usable bytes of the block a call returned under an allocator without readable headers:
 * from its size classes, or requested where they cannot tell (counted).
 */
static uint64_t usable_from_classes(struct target *t, const struct ht_call_event *ev,
				    enum ht_func func, const struct movement *moved,
				    const struct live_block *resized)
{
	uint64_t align = alignment_of(ev, func);

	/* Resized: some allocators keep the block's class in place, or grow it by more. */
	if (resized)
		return allocator__realloc_usable(&t->alloc, moved->requested, resized->usable,
						 moved->returned == moved->released);
	if (allocator__usable_known(&t->alloc, func, moved->requested, align))
		return allocator__usable(&t->alloc, func, moved->requested, align);
	t->usable_unknown++;
	return moved->requested;
}

void track_owner(struct target *t, const struct ht_call_event *ev, enum ht_func func,
		 struct stack_record *site, struct movement *moved, double now)
{
	bool glibc = t->alloc.glibc, taken = false;
	struct live_block old;

	if (!t->owner.live)
		return; /* no memory for its table when it was found */
	if (moved->released &&
	    (taken = owner__released(&t->owner, moved->released, ev->freed_usable, glibc, &old)) &&
	    !glibc)
		moved->delta -= (int64_t)old.usable; /* its size is only known from the table */
	if (moved->returned) {
		bool resized = taken && (func == HT_REALLOC || func == HT_REALLOCARRAY);
		uint64_t usable = glibc ? ev->alloc_usable :
				  usable_from_classes(t, ev, func, moved, resized ? &old : NULL);

		if (!glibc)
			moved->delta += (int64_t)(usable - moved->requested);
		owner__allocated(&t->owner, site, moved->returned, (struct live_block){
			.usable = usable,
			.requested = moved->requested,
			.tid = ev->tid,
			.when = (uint32_t)(now - t->owner_since),
		});
	}
}

void sample_total_now(struct target *t, double since_start)
{
	if (!t->untraced)
		total_series__add(&t->samples, since_start, t->stats.total.current,
				  t->stats.total.max, true);
}

void sample_target(struct target *t, double now, double since_start)
{
	if (t->owner.live)
		owner__sample(&t->owner, now - t->owner_since);
	if (!t->untraced)
		total_series__add(&t->samples, since_start, t->stats.total.current,
				  t->stats.total.max, false);
}
