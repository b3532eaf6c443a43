// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "live_blocks.h"

TestSuite(live_blocks);

static struct live_block block(uint64_t usable, uint64_t requested, uint32_t site)
{
	return (struct live_block){ .usable = usable, .requested = requested, .site = site,
				    .tid = 7, .when = 3 };
}

Test(live_blocks, a_block_taken_is_the_block_added)
{
	struct live_blocks *lb = live_blocks__new(0);
	struct live_block b = block(40, 33, 5), out, unused;

	cr_assert(eq(int, live_blocks__add(lb, 0x1000, &b, &unused), 0));
	cr_assert(eq(sz, live_blocks__count(lb), 1));
	cr_assert(live_blocks__take(lb, 0x1000, &out));
	cr_assert(eq(u64, out.usable, 40));
	cr_assert(eq(u64, out.requested, 33));
	cr_assert(eq(u32, out.site, 5));
	cr_assert(eq(u32, out.tid, 7));
	cr_assert(eq(u32, out.when, 3));
	cr_assert(eq(sz, live_blocks__count(lb), 0));
	cr_assert(not(live_blocks__take(lb, 0x1000, &out)), "taken twice");
	live_blocks__free(lb);
}

/* An ended process's table gives its slots back and keeps its counts for the report. */
Test(live_blocks, a_retired_table_keeps_its_counts_not_its_slots)
{
	struct live_blocks *lb = live_blocks__new(0);
	struct live_block b = block(40, 33, 5), out, unused;

	for (uint64_t i = 1; i <= 5000; i++)
		cr_assert(eq(int, live_blocks__add(lb, i << 4, &b, &unused), 0));
	cr_assert(gt(sz, live_blocks__bytes(lb), 5000 * 32));
	live_blocks__retire(lb);
	cr_assert(eq(sz, live_blocks__count(lb), 5000));
	cr_assert(lt(sz, live_blocks__bytes(lb), 1024), "slots given back");
	cr_assert(not(live_blocks__take(lb, 1 << 4, &out)));
	cr_assert(eq(int, live_blocks__add(lb, 1 << 4, &b, &unused), -ENOMEM));
	live_blocks__free(lb);
}

Test(live_blocks, a_block_never_added_is_not_found)
{
	struct live_blocks *lb = live_blocks__new(0);
	struct live_block b = block(24, 24, 1), out;

	cr_assert(not(live_blocks__take(lb, 0x2000, &out)));
	cr_assert(not(live_blocks__take(lb, 0, &out)));
	cr_assert(eq(int, live_blocks__add(lb, 0x1000, &b, &out), 0));
	cr_assert(not(live_blocks__take(lb, 0x2000, &out)));
	live_blocks__free(lb);
}

Test(live_blocks, an_address_added_twice_returns_the_block_it_replaces)
{
	struct live_blocks *lb = live_blocks__new(0);
	struct live_block first = block(24, 20, 1), second = block(48, 40, 2), out;

	cr_assert(eq(int, live_blocks__add(lb, 0x1000, &first, &out), 0));
	cr_assert(eq(int, live_blocks__add(lb, 0x1000, &second, &out), 1));
	cr_assert(eq(u32, out.site, 1));
	cr_assert(eq(u64, out.usable, 24));
	cr_assert(eq(sz, live_blocks__count(lb), 1));
	cr_assert(live_blocks__take(lb, 0x1000, &out));
	cr_assert(eq(u32, out.site, 2));
	live_blocks__free(lb);
}

Test(live_blocks, blocks_past_the_limit_are_counted_not_kept)
{
	struct live_blocks *lb = live_blocks__new(3);
	struct live_block b = block(32, 30, 1), out;
	struct live_blocks_losses lost;

	for (uint64_t a = 1; a <= 5; a++)
		live_blocks__add(lb, a << 4, &b, &out);
	lost = live_blocks__over_limit(lb);
	cr_assert(eq(sz, live_blocks__count(lb), 3));
	cr_assert(eq(u64, lost.blocks, 2));
	cr_assert(eq(u64, lost.bytes, 64));
	cr_assert(not(live_blocks__take(lb, 5 << 4, &out)), "the fifth was kept");
	/* Room again: the next block is kept. */
	cr_assert(live_blocks__take(lb, 1 << 4, &out));
	cr_assert(eq(int, live_blocks__add(lb, 6 << 4, &b, &out), 0));
	cr_assert(eq(u64, live_blocks__over_limit(lb).blocks, 2));
	live_blocks__free(lb);
}

Test(live_blocks, a_slack_too_large_for_a_slot_is_counted)
{
	struct live_blocks *lb = live_blocks__new(0);
	struct live_block b = block((8ull << 30) + 16, 16, 1), out;

	cr_assert(eq(int, live_blocks__add(lb, 0x1000, &b, &out), -ENOSPC));
	cr_assert(eq(u64, live_blocks__over_limit(lb).blocks, 1));
	cr_assert(eq(u64, live_blocks__over_limit(lb).bytes, (8ull << 30) + 16));
	live_blocks__free(lb);
}

/* Random adds and takes against a plain array: growth and back-shifts lose nothing. */
Test(live_blocks, many_adds_and_takes_agree_with_a_plain_array)
{
	enum { NR = 1 << 16, STEPS = 400000 };
	struct live_blocks *lb = live_blocks__new(0);
	uint32_t *sites = calloc(NR, sizeof(*sites)); /* 0: not live */
	size_t live = 0;

	cr_assert(not(eq(ptr, sites, NULL)));
	srandom(19);
	for (size_t step = 0; step < STEPS; step++) {
		size_t i = (size_t)random() % NR;
		/* Addresses as allocators give them: 16-aligned, clustered. */
		uint64_t addr = 0x55550000000ull + (uint64_t)i * 48;
		struct live_block b = block(i + 16, i, (uint32_t)step + 1), out;

		if (sites[i]) {
			cr_assert(live_blocks__take(lb, addr, &out), "step %zu lost %zu", step, i);
			cr_assert(eq(u32, out.site, sites[i]));
			cr_assert(eq(u64, out.usable, i + 16));
			sites[i] = 0;
			live--;
		} else {
			cr_assert(eq(int, live_blocks__add(lb, addr, &b, &out), 0));
			sites[i] = b.site;
			live++;
		}
		cr_assert(eq(sz, live_blocks__count(lb), live));
	}
	for (size_t i = 0; i < NR; i++) {
		struct live_block out;
		bool found = live_blocks__take(lb, 0x55550000000ull + (uint64_t)i * 48, &out);

		cr_assert(eq(int, found, sites[i] != 0), "block %zu", i);
	}
	cr_assert(eq(sz, live_blocks__count(lb), 0));
	free(sites);
	live_blocks__free(lb);
}

Test(live_blocks, the_table_stays_dense)
{
	enum { NR = 200000 };
	struct live_blocks *lb = live_blocks__new(0);
	struct live_block b = block(32, 32, 1), out;

	for (uint64_t a = 1; a <= NR; a++)
		live_blocks__add(lb, a << 5, &b, &out);
	/* At most 32 bytes a slot over a table at least 70% full, as the header says. */
	cr_assert(le(sz, live_blocks__bytes(lb), (size_t)NR * 32 * 10 / 7 + 4096));
	live_blocks__free(lb);
}
