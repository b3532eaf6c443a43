// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Each call's blocks into its process's owner figures (owner.h), and their samples. */
#include <unistd.h>
#include "sample_weights.h"
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
	/* Read from the allocator's page by BPF: an aligned block of mimalloc. */
	if (ev->flags & HT_F_USABLE_FROM_PAGE)
		return ev->alloc_usable;
	if (allocator__usable_known(&t->alloc, func, moved->requested, align))
		return allocator__usable(&t->alloc, func, moved->requested, align);
	t->usable_unknown++;
	return moved->requested;
}

/*
 * --sample-bytes: only sampled blocks enter and leave the owner figures, each weighed by
 * 1/p; the call's movement becomes the estimate the balances are charged with.
 */
static void track_sampled(struct target *t, const struct ht_call_event *ev, enum ht_func func,
			  struct stack_record *site, struct movement *moved, double now)
{
	bool glibc = t->alloc.glibc, taken = false;
	uint64_t generation = t->owner.generation;
	struct live_block old, b;
	int64_t delta = 0;
	uint64_t requested = 0;

	if (moved->released && (ev->flags & HT_F_OLD_SAMPLED) &&
	    (taken = owner__released(&t->owner, moved->released, ev->freed_usable, glibc, &old)))
		delta -= (int64_t)live_block__usable(&old);
	/* A free stands for the calls its block did; an allocation for its own draw's. */
	moved->calls = taken ? live_block__blocks(&old) : 1;
	if (moved->returned && (ev->flags & HT_F_SAMPLED)) {
		bool resized = taken && (func == HT_REALLOC || func == HT_REALLOCARRAY);

		b = (struct live_block){
			.usable = glibc ? ev->alloc_usable :
					  usable_from_classes(t, ev, func, moved, resized ? &old : NULL),
			.requested = moved->requested,
			.tid = ev->tid,
			.when = (uint32_t)(now - t->owner_since),
			.weight = (float)sample_weight(t->owner.sample_bytes, moved->requested),
		};
		owner__allocated(&t->owner, site, moved->returned, b);
		delta += (int64_t)live_block__usable(&b);
		requested = live_block__requested(&b);
		moved->calls = live_block__blocks(&b);
		if (t->owner.generation != generation)
			t->peak_seconds = now - t->owner_since;
	}
	moved->delta = delta;
	moved->requested = requested;
}

void track_owner(struct target *t, const struct ht_call_event *ev, enum ht_func func,
		 struct stack_record *site, struct movement *moved, double now)
{
	bool glibc = t->alloc.glibc, taken = false;
	uint64_t generation = t->owner.generation;
	struct live_block old;

	if (!t->owner.live)
		return; /* no memory for its table when it was found */
	t->owner.event_ns = ev->time_ns; /* the node's sum takes its change at this time */
	if (t->owner.sample_bytes) {
		track_sampled(t, ev, func, site, moved, now);
		return;
	}
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
		/* A new maximum: to the consumer's clock, what the report's "when" can say. */
		if (t->owner.generation != generation)
			t->peak_seconds = now - t->owner_since;
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
