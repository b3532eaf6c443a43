// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "movement.h"

static uint64_t product(uint64_t a, uint64_t b)
{
	uint64_t p;

	return __builtin_mul_overflow(a, b, &p) ? 0 : p;
}

/* The size the caller asked for. */
static uint64_t asked(const struct ht_call_event *ev, enum ht_func func)
{
	switch (func) {
	case HT_CALLOC:
		return product(ev->args[0], ev->args[1]);
	case HT_REALLOCARRAY:
		return product(ev->args[1], ev->args[2]);
	case HT_REALLOC:
	case HT_MEMALIGN:
	case HT_ALIGNED_ALLOC:
		return ev->args[1];
	case HT_POSIX_MEMALIGN:
		return ev->args[2];
	case HT_FREE:
		return 0;
	default: /* malloc, valloc, pvalloc */
		return ev->args[0];
	}
}

struct movement movement_of(const struct ht_call_event *ev, enum ht_func func, bool usable_known)
{
	uint64_t size = asked(ev, func);
	struct movement m = { .calls = 1 };
	uint64_t freed = ev->freed_usable, got = ev->alloc_usable;

	if (!usable_known) {
		/* Without block sizes a release cannot be measured; only what was asked counts. */
		freed = 0;
		got = size;
	}
	switch (func) {
	case HT_FREE:
		m.delta = -(int64_t)freed; /* 0 for free(NULL): nothing was read */
		m.released = ev->args[0];
		return m;
	case HT_REALLOC:
	case HT_REALLOCARRAY:
		if (func == HT_REALLOCARRAY && ev->args[1] && ev->args[2] && !size)
			return m; /* n * size overflowed: it failed, p untouched */
		if (ev->alloc_ptr) {
			m.delta = (int64_t)got - (int64_t)freed;
			m.requested = size;
			m.released = ev->args[0]; /* moved, or resized in place: a new block */
			m.returned = ev->alloc_ptr;
		} else if (ev->args[0] && size == 0) {
			m.delta = -(int64_t)freed; /* glibc: realloc(p, 0) frees p */
			m.released = ev->args[0];
		}
		/* Otherwise it failed and the old block stays where it was. */
		return m;
	default:
		if (ev->alloc_ptr) {
			m.delta = (int64_t)got;
			m.requested = size;
			m.returned = ev->alloc_ptr;
		}
		return m;
	}
}
