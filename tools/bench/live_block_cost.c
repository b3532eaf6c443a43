// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * live_block_cost: what heaptap adds in userspace to each call under an allocator whose
 * block sizes it cannot read (jemalloc here): a free is one live-block lookup (take), an
 * allocation one usable size from the size classes and one insertion (add). Measured on
 * a table holding a million live blocks, at addresses spaced as a heap's.
 */
#include <stdio.h>
#include <time.h>
#include "allocator.h"
#include "live_blocks.h"

#define ROUNDS 4

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* A heap-like address for block i: 48-byte steps, scattered over 3 GiB. */
static uint64_t address_of(uint64_t i)
{
	return 0x7f0000000000ull + (i * 2654435761u % (64u << 20)) * 48;
}

/*
 * With live blocks in the table: ns per free (take), per usable size, per insertion. Every
 * round frees every block, then allocates it again.
 */
static int measure(uint64_t live, double *take_ns, double *usable_ns, double *add_ns)
{
	struct live_blocks *lb = live_blocks__new(2 * live);
	struct allocator je = { .classes = SIZE_CLASSES_JEMALLOC };
	struct live_block b = {}, out;
	double take = 0, usable = 0, add = 0, t0;
	uint64_t found = 0, sink = 0;

	if (!lb)
		return -1;
	for (uint64_t i = 0; i < live; i++) {
		b.usable = b.requested = 16 + i % 4000;
		live_blocks__add(lb, address_of(i), &b, &out);
	}
	for (int r = 0; r < ROUNDS; r++) {
		t0 = seconds();
		for (uint64_t i = 0; i < live; i++)
			found += live_blocks__take(lb, address_of(i), &out);
		take += seconds() - t0;
		t0 = seconds();
		for (uint64_t i = 0; i < live; i++)
			sink += allocator__usable(&je, HT_MALLOC, 16 + i % 4000, 0);
		usable += seconds() - t0;
		t0 = seconds();
		for (uint64_t i = 0; i < live; i++) {
			b.usable = b.requested = 16 + i % 4000;
			live_blocks__add(lb, address_of(i), &b, &out);
		}
		add += seconds() - t0;
	}
	live_blocks__free(lb);
	*take_ns = take * 1e9 / (ROUNDS * live);
	*usable_ns = usable * 1e9 / (ROUNDS * live);
	*add_ns = add * 1e9 / (ROUNDS * live);
	return found == ROUNDS * live && sink ? 0 : -1;
}

int main(void)
{
	double take[2], usable[2], add[2];

	/* A program's few thousand blocks (the table in cache), and a million. */
	if (measure(4096, &take[0], &usable[0], &add[0]) ||
	    measure(1 << 20, &take[1], &usable[1], &add[1]))
		return 1;
	printf("jemalloc: a free is one live-block lookup: %.1f ns per call with 4096 live "
	       "blocks, %.1f ns with 1M; an allocation's usable size from its classes %.1f ns, "
	       "its insertion %.1f / %.1f ns\n", take[0], take[1], usable[0], add[0], add[1]);
	return 0;
}
