// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Each allocator's size classes, as its malloc_usable_size reports them. Validated against
 * the real libraries (Debian 12: jemalloc 5.3, gperftools 2.10, mimalloc 2.0.9, oneTBB
 * 2021.8) by tests/unit/test_size_classes.c, for every size up to 256 KiB and samples beyond.
 */
#include <pthread.h>
#include <string.h>
#include "size_classes.h"

#define KIB 1024ull
#define MIB (1024 * KIB)

static const struct {
	const char *prefix; /* of the file name */
	const char *name;
	enum size_classes classes;
} families[] = {
	{ "libjemalloc", "jemalloc", SIZE_CLASSES_JEMALLOC },
	{ "libtcmalloc", "tcmalloc", SIZE_CLASSES_TCMALLOC },
	{ "libmimalloc", "mimalloc", SIZE_CLASSES_MIMALLOC },
	{ "libtbbmalloc", "tbb", SIZE_CLASSES_TBB },
};

enum size_classes size_classes__of(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		if (!strncmp(base, families[i].prefix, strlen(families[i].prefix)))
			return families[i].classes;
	}
	return SIZE_CLASSES_NONE;
}

bool size_classes__pages_readable(const char *path)
{
	const char *slash = strrchr(path, '/');

	/* libmimalloc.so.2 names 2.1 too, whose pages differ: the file's own name tells. */
	return !strncmp(slash ? slash + 1 : path, "libmimalloc.so.2.0", 18);
}

const char *size_classes__name(enum size_classes classes)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		if (families[i].classes == classes)
			return families[i].name;
	}
	return NULL;
}

/* to: a power of two */
static uint64_t round_up(uint64_t n, uint64_t to)
{
	return (n + to - 1) & ~(to - 1);
}

/*
 * Four classes between consecutive powers of two, no closer than min_step: jemalloc's
 * spacing, and mimalloc's and TBB's for their small blocks.
 */
static uint64_t quarter_class(uint64_t size, uint64_t min_step)
{
	int lg = 63 - __builtin_clzll(size - 1); /* size in (2^lg, 2^(lg+1)] */
	uint64_t step = lg >= 2 ? 1ull << (lg - 2) : 1;

	return round_up(size, step > min_step ? step : min_step);
}

/* Beyond this, sizes are failed requests (and class arithmetic would overflow). */
#define MAX_CLASSED (1ull << 62)

/* jemalloc: 8, 16, then four classes per doubling, small and large alike. */
static uint64_t jemalloc_class(uint64_t size)
{
	if (size <= 8)
		return 8; /* malloc(0) gets the smallest class */
	if (size <= 16)
		return 16;
	return quarter_class(size, 16);
}

#define JE_PAGE (4 * KIB)
#define JE_SMALL_MAX (14 * KIB)
#define JE_LARGE_MIN (16 * KIB)

/* jemalloc's aligned sizes: small classes are aligned to their lowest set bit. */
static uint64_t jemalloc_aligned(uint64_t size, uint64_t align)
{
	uint64_t usable;

	if (!size)
		size = 1;
	if (size <= JE_SMALL_MAX && align <= JE_PAGE) {
		usable = jemalloc_class(round_up(size, align));
		if (usable < JE_LARGE_MIN)
			return usable;
	}
	/* Large blocks are page aligned, or carved from a larger mapping. */
	return size <= JE_LARGE_MIN ? JE_LARGE_MIN : jemalloc_class(size);
}

/*
 * gperftools computes its classes when it starts (SizeMap::Init): sizes up to 256 KiB are
 * grouped so that a span of pages wastes at most 1/8 and holds enough objects for one
 * transfer between the central and the thread caches (64 KiB of objects, at most 32 of
 * them: Debian's build; TCMALLOC_TRANSFER_NUM_OBJ in the target's environment would change
 * it). The same walk here gives the same table. Larger blocks are whole 8 KiB pages.
 */
#define TC_PAGE (8 * KIB)
#define TC_MAX_CLASSED (256 * KIB)
#define TC_MAX_CLASSES 256
#define TC_TRANSFER_MAX 32

static struct {
	uint64_t size[TC_MAX_CLASSES];
	uint64_t pages[TC_MAX_CLASSES];
	int nr;
} tc;
static pthread_once_t tc_once = PTHREAD_ONCE_INIT;

static uint64_t tc_step_for(uint64_t size)
{
	uint64_t step = 8;

	if (size >= 128)
		step = (1ull << (63 - __builtin_clzll(size))) / 8;
	else if (size >= 16)
		step = 16;
	return step > TC_PAGE ? TC_PAGE : step;
}

static uint64_t tc_objects_to_move(uint64_t size)
{
	uint64_t n = (uint64_t)(64.0 * 1024.0 / size);

	if (n < 2)
		n = 2;
	return n > TC_TRANSFER_MAX ? TC_TRANSFER_MAX : n;
}

static void tc_build(void)
{
	uint64_t step;

	for (uint64_t size = 8; size <= TC_MAX_CLASSED && tc.nr < TC_MAX_CLASSES; size += step) {
		uint64_t span = 0, pages;

		step = tc_step_for(size);
		do {
			span += TC_PAGE;
			while (span % size > span / 8)
				span += TC_PAGE;
		} while (span / size < tc_objects_to_move(size) / 4);
		pages = span / TC_PAGE;
		/* A size that fits as many objects in the same span widens the class before. */
		if (tc.nr && pages == tc.pages[tc.nr - 1] &&
		    span / size == pages * TC_PAGE / tc.size[tc.nr - 1]) {
			tc.size[tc.nr - 1] = size;
			continue;
		}
		tc.size[tc.nr] = size;
		tc.pages[tc.nr++] = pages;
	}
}

/* The first class that holds size and whose blocks are aligned to align. */
static uint64_t tcmalloc_class(uint64_t size, uint64_t align)
{
	int lo = 0, hi;

	pthread_once(&tc_once, tc_build);
	hi = tc.nr;
	if (size <= TC_MAX_CLASSED && align <= TC_PAGE) {
		while (lo < hi) {
			int mid = (lo + hi) / 2;

			if (tc.size[mid] < size)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < tc.nr; lo++) {
			if (!(tc.size[lo] & (align - 1)))
				return tc.size[lo];
		}
	}
	return round_up(size ? size : 1, TC_PAGE);
}

/*
 * mimalloc: 8, multiples of 16 to 64, four bins per doubling to 128 KiB, whole 64 KiB
 * slices to 512 KiB; larger blocks get a segment of their own: 512 KiB steps to 8 MiB, 1 MiB
 * to 32 MiB, 4 MiB beyond. Aligned blocks are carved from larger ones at an offset that
 * depends on their address: unknown.
 */
static bool mimalloc_class(uint64_t size, uint64_t *usable)
{
	if (size <= 8)
		*usable = 8;
	else if (size <= 64)
		*usable = round_up(size, 16);
	else if (size <= 128 * KIB)
		*usable = quarter_class(size, 16);
	else if (size <= 512 * KIB)
		*usable = round_up(size, 64 * KIB);
	else if (size <= 8 * MIB)
		*usable = round_up(size, 512 * KIB);
	else if (size <= 32 * MIB)
		*usable = round_up(size, MIB);
	else
		*usable = round_up(size, 4 * MIB);
	return true;
}

/*
 * TBB: bins of 8, multiples of 16 to 128, four per doubling to 1 KiB, five "fitting"
 * sizes to 8128; larger objects report their requested size.
 */
#define TBB_SEGREGATED_MAX 1024
#define TBB_SMALL_MAX 8128
#define TBB_FITTING_ALIGN 64

static uint64_t tbb_class(uint64_t size)
{
	static const uint64_t fitting[] = { 1792, 2688, 4032, 5376, TBB_SMALL_MAX };

	if (size <= 8)
		return 8;
	if (size <= 128)
		return round_up(size, 16);
	if (size <= TBB_SEGREGATED_MAX)
		return quarter_class(size, 16);
	for (size_t i = 0; i < sizeof(fitting) / sizeof(fitting[0]); i++) {
		if (size <= fitting[i])
			return fitting[i];
	}
	return size;
}

static bool tbb_aligned(uint64_t size, uint64_t align, uint64_t *usable)
{
	if (size <= TBB_SEGREGATED_MAX && align <= TBB_SEGREGATED_MAX) {
		*usable = tbb_class(round_up(size ? size : 8, align));
		return true;
	}
	if (size <= TBB_SMALL_MAX && align <= TBB_FITTING_ALIGN) {
		*usable = tbb_class(size);
		return true;
	}
	/* A small block carved from a larger bin, at an offset its address decides. */
	if (size + align <= TBB_SMALL_MAX)
		return false;
	*usable = size;
	return true;
}

bool size_classes__usable(enum size_classes classes, uint64_t size, uint64_t align,
			  uint64_t *usable)
{
	bool known = true;

	*usable = size;
	if (size > MAX_CLASSED || align > MAX_CLASSED)
		return false;
	switch (classes) {
	case SIZE_CLASSES_JEMALLOC:
		*usable = align ? jemalloc_aligned(size, align) : jemalloc_class(size);
		break;
	case SIZE_CLASSES_TCMALLOC:
		*usable = tcmalloc_class(size, align ? align : 1);
		break;
	case SIZE_CLASSES_MIMALLOC:
		known = !align && mimalloc_class(size, usable);
		break;
	case SIZE_CLASSES_TBB:
		if (align)
			known = tbb_aligned(size, align, usable);
		else
			*usable = tbb_class(size);
		break;
	case SIZE_CLASSES_NONE:
		known = false;
		break;
	}
	if (!known)
		*usable = size;
	return known;
}

bool size_classes__realloc_usable(enum size_classes classes, uint64_t size, uint64_t old_usable,
				  bool in_place, uint64_t *usable)
{
	/*
	 * tcmalloc, mimalloc and TBB's small bins keep a block that still fits (and is not
	 * too large for it): its class stays. jemalloc resizes in place to the new class;
	 * TBB's large objects record the new size, whatever it is.
	 */
	if (in_place && (classes == SIZE_CLASSES_TCMALLOC || classes == SIZE_CLASSES_MIMALLOC ||
			 classes == SIZE_CLASSES_TBB)) {
		*usable = classes == SIZE_CLASSES_TBB && old_usable > TBB_SMALL_MAX ? size
										     : old_usable;
		return true;
	}
	/* tcmalloc grows a block by a quarter at least, against resizing ping-pongs. */
	if (classes == SIZE_CLASSES_TCMALLOC && size > old_usable &&
	    size < old_usable + old_usable / 4)
		size = old_usable + old_usable / 4;
	return size_classes__usable(classes, size, 0, usable);
}
