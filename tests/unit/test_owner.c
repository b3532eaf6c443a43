// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "owner.h"

TestSuite(owner);

static struct live_block block(uint64_t usable, uint64_t requested)
{
	return (struct live_block){ .usable = usable, .requested = requested };
}

Test(owner, a_free_on_another_thread_leaves_the_allocating_site)
{
	struct stack_record alloc_site = {}, other = {};
	struct owner o;
	struct live_block out;

	cr_assert(eq(int, owner__init(&o, 0, 1.0), 0));
	owner__allocated(&o, &alloc_site, 0x1000, block(48, 40));
	owner__allocated(&o, &other, 0x2000, block(32, 32));
	cr_assert(owner__released(&o, 0x1000, 48, true, &out));
	cr_assert(eq(u32, o.threads[out.site].site, alloc_site.site));
	cr_assert(eq(u64, o.sites[alloc_site.site].blocks, 0));
	cr_assert(eq(u64, o.sites[alloc_site.site].allocated_bytes, 48));
	cr_assert(eq(u64, o.sites[other.site].bytes, 32));
	cr_assert(eq(u64, o.bytes, 32));
	owner__clear(&o);
}

Test(owner, frees_of_blocks_never_seen_are_counted_apart)
{
	struct owner o;
	struct live_block out;

	cr_assert(eq(int, owner__init(&o, 0, 1.0), 0));
	cr_assert(not(owner__released(&o, 0x1000, 24, true, &out)));
	cr_assert(not(owner__released(&o, 0x2000, 40, true, &out)));
	cr_assert(eq(u64, o.freed_before_tracing.calls, 2));
	cr_assert(eq(u64, o.freed_before_tracing.bytes, 64));
	cr_assert(o.freed_before_tracing.bytes_known);
	cr_assert(not(owner__released(&o, 0x3000, 0, false, &out)));
	cr_assert(not(o.freed_before_tracing.bytes_known), "an allocator without headers");
	cr_assert(eq(u64, o.bytes, 0));
	owner__clear(&o);
}

/* The record of site's blocks allocated by tid, or NULL. */
static const struct owner_thread *thread_record(const struct owner *o, uint32_t site,
						uint32_t tid)
{
	for (uint32_t i = o->sites[site].threads; i; i = o->threads[i].next) {
		if (o->threads[i].tid == tid)
			return &o->threads[i];
	}
	return NULL;
}

/*
 * Random calls at a few sites from a few threads against the obvious way: a copy of every
 * site's and every site and thread's figures at each new maximum. The generations must
 * give the same snapshot, per site and per thread.
 */
Test(owner, the_peak_snapshot_equals_a_copy_at_each_maximum)
{
	enum { SITES = 5, THREADS = 3, SLOTS = 64, STEPS = 20000 };
	struct stack_record records[SITES] = {};
	uint64_t addr_bytes[SLOTS] = {}, cur[SITES] = {}, copy[SITES] = {}, total = 0, peak = 0;
	uint64_t cur_t[SITES][THREADS] = {}, copy_t[SITES][THREADS] = {};
	uint64_t allocated_t[SITES][THREADS] = {}, calls_t[SITES][THREADS] = {};
	int addr_site[SLOTS], addr_thread[SLOTS];
	struct owner o;

	cr_assert(eq(int, owner__init(&o, 0, 1.0), 0));
	srandom(7);
	for (int step = 0; step < STEPS; step++) {
		int slot = (int)(random() % SLOTS);
		uint64_t addr = 0x10000 + (uint64_t)slot * 0x100;
		struct live_block out;

		if (addr_bytes[slot]) {
			cr_assert(owner__released(&o, addr, 0, true, &out));
			cur[addr_site[slot]] -= addr_bytes[slot];
			cur_t[addr_site[slot]][addr_thread[slot]] -= addr_bytes[slot];
			total -= addr_bytes[slot];
			addr_bytes[slot] = 0;
		} else {
			int site = (int)(random() % SITES), thread = (int)(random() % THREADS);
			uint64_t bytes = 16 + (uint64_t)(random() % 4096);
			struct live_block b = block(bytes, bytes);

			b.tid = 100 + (uint32_t)thread;
			owner__allocated(&o, &records[site], addr, b);
			addr_bytes[slot] = bytes;
			addr_site[slot] = site;
			addr_thread[slot] = thread;
			cur[site] += bytes;
			cur_t[site][thread] += bytes;
			allocated_t[site][thread] += bytes;
			calls_t[site][thread]++;
			total += bytes;
			if (total > peak) {
				peak = total;
				memcpy(copy, cur, sizeof(cur));
				memcpy(copy_t, cur_t, sizeof(cur_t));
			}
		}
	}
	cr_assert(eq(u64, o.peak_bytes, peak));
	for (int i = 0; i < SITES; i++) {
		const struct owner_site *s = &o.sites[records[i].site];

		cr_assert(eq(u64, owner_site__peak_bytes(&o, s), copy[i]), "site %d", i);
		cr_assert(eq(u64, s->bytes, cur[i]), "site %d", i);
		for (int t = 0; t < THREADS; t++) {
			const struct owner_thread *th = thread_record(&o, records[i].site, 100 + t);

			cr_assert(th != NULL, "site %d thread %d", i, t);
			cr_assert(eq(u64, owner_thread__peak_bytes(&o, th), copy_t[i][t]),
				  "site %d thread %d", i, t);
			cr_assert(eq(u64, th->bytes, cur_t[i][t]), "site %d thread %d", i, t);
			cr_assert(eq(u64, th->allocated_bytes, allocated_t[i][t]));
			cr_assert(eq(u64, th->allocated_blocks, calls_t[i][t]));
		}
	}
	owner__clear(&o);
}

/* A block freed by another thread leaves the record of the thread that allocated it. */
Test(owner, a_block_leaves_its_allocating_threads_record)
{
	struct stack_record site = {};
	struct live_block a = block(64, 60), b = block(128, 128), out;
	const struct owner_thread *first, *second;
	struct owner o;

	a.tid = 11;
	b.tid = 12;
	cr_assert(eq(int, owner__init(&o, 0, 1.0), 0));
	owner__allocated(&o, &site, 0x1000, a);
	owner__allocated(&o, &site, 0x2000, b);
	owner__allocated(&o, &site, 0x3000, a);
	cr_assert(owner__released(&o, 0x1000, 64, true, &out));
	first = thread_record(&o, site.site, 11);
	second = thread_record(&o, site.site, 12);
	cr_assert(first != NULL && second != NULL);
	cr_assert(eq(u64, first->blocks, 1));
	cr_assert(eq(u64, first->bytes, 64));
	cr_assert(eq(u64, first->allocated_blocks, 2));
	cr_assert(eq(u64, second->bytes, 128));
	cr_assert(eq(u64, owner_thread__peak_bytes(&o, first), 128), "both held at the peak");
	cr_assert(eq(u64, o.sites[site.site].bytes, first->bytes + second->bytes));
	owner__clear(&o);
}

Test(owner, sites_sort_by_outstanding_bytes)
{
	struct stack_record a = {}, b = {}, c = {};
	struct owner o;
	uint32_t nr, *order;

	cr_assert(eq(int, owner__init(&o, 0, 1.0), 0));
	owner__allocated(&o, &a, 0x1000, block(100, 100));
	owner__allocated(&o, &b, 0x2000, block(300, 300));
	owner__allocated(&o, &c, 0x3000, block(200, 200));
	order = owner__by_outstanding(&o, &nr);
	cr_assert(eq(u32, nr, 4), "three sites and the unrecorded stacks'");
	cr_assert(eq(u32, order[0], b.site));
	cr_assert(eq(u32, order[1], c.site));
	cr_assert(eq(u32, order[2], a.site));
	free(order);
	owner__clear(&o);
}

/* Times are kept as floats: equal to a part in 10^5. */
static bool near(double got, double want)
{
	double margin = 1e-5 * (want < 0 ? -want : want) + 1e-9;

	return got - want <= margin && want - got <= margin;
}

static struct leak_verdict verdict_of(const uint64_t *points, size_t nr)
{
	struct leak_series *s = leak_series__new(0);
	struct leak_verdict v;

	for (size_t i = 0; i < nr; i++)
		leak_series__add(s, i, points[i], (double)i);
	v = leak_series__verdict(s);
	leak_series__free(s);
	return v;
}

Test(owner, a_steady_growth_is_a_likely_leak)
{
	uint64_t points[8];

	for (int i = 0; i < 8; i++)
		points[i] = 1000 + 500 * i;
	cr_assert(verdict_of(points, 8).likely_leak);
	cr_assert(near(verdict_of(points, 8).growth_bytes_per_second, 500.0));
}

/* Samples taken late are fitted at their own time: the rate stays the rate. */
Test(owner, late_samples_keep_the_rate)
{
	static const double when[6] = { 1.0, 2.0, 3.6, 4.0, 5.0, 6.9 };
	struct leak_series *s = leak_series__new(0);

	for (int i = 0; i < 6; i++)
		leak_series__add(s, (uint64_t)i, (uint64_t)(1000 * when[i]), when[i]);
	cr_assert(near(leak_series__verdict(s).growth_bytes_per_second, 1000.0));
	cr_assert(leak_series__verdict(s).likely_leak);
	leak_series__free(s);
}

Test(owner, blocks_held_since_start_up_or_a_burst_are_not)
{
	uint64_t held[8] = { 4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000 };
	uint64_t burst[8] = { 0, 0, 0, 0, 9000, 9000, 9000, 9000 };
	uint64_t plateau[8] = { 100, 200, 300, 400, 500, 600, 600, 600 };
	uint64_t too_short[3] = { 100, 200, 300 };

	cr_assert(not(verdict_of(held, 8).likely_leak));
	cr_assert(not(verdict_of(burst, 8).likely_leak), "R² of a step is low");
	cr_assert(not(verdict_of(plateau, 8).likely_leak), "no growth in the last quarter");
	cr_assert(not(verdict_of(too_short, 3).likely_leak));
}

Test(owner, a_long_series_keeps_its_spacing)
{
	struct leak_series *s = leak_series__new(10);

	for (uint64_t i = 10; i < 10 + 1000; i++)
		leak_series__add(s, i, 7 * (i - 10), (i - 10) * 0.5);
	cr_assert(le(u32, s->nr, LEAK_POINTS));
	cr_assert(ge(u32, s->nr, LEAK_POINTS / 2));
	/* Every point i is sample first + i * stride. */
	for (uint32_t i = 0; i < s->nr; i++)
		cr_assert(eq(u64, s->points[i], 7ull * i * s->stride));
	cr_assert(near(leak_series__verdict(s).growth_bytes_per_second, 14.0));
	for (uint32_t i = 0; i < s->nr; i++)
		cr_assert(near(s->seconds[i], 0.5 * i * s->stride));
	leak_series__free(s);
}

/*
 * Processes on one node, read by two consumers: b's calls by one (300 allocated at 2 ns,
 * freed at 3, 200 allocated at 4), a's by the other (100 allocated at 3.5 ns), read after
 * all of b's. Taken in the order they were read, the sum would reach 400; in the calls'
 * order it peaks at 300 (b's first block alone), and its sites keep what they held then.
 * An ended process holds nothing at a later peak (c's 400 beside a's 100).
 */
Test(owner, the_node_peaks_at_the_sum_at_once_in_the_calls_order)
{
	struct stack_record a_site = {}, b_first = {}, b_second = {}, c_site = {};
	struct node_log first_consumer = {}, second_consumer = {};
	struct node_total node;
	struct owner a, b, c;
	struct live_block out;

	cr_assert(eq(int, node_total__init(&node, 2, 0), 0));
	cr_assert(eq(int, owner__init(&a, 0, 1.0), 0));
	cr_assert(eq(int, owner__init(&b, 0, 1.0), 0));
	cr_assert(eq(int, owner__init(&c, 0, 1.0), 0));
	owner__join_node(&a, &node, &first_consumer);
	owner__join_node(&b, &node, &second_consumer);
	owner__join_node(&c, &node, &first_consumer);
	b.event_ns = 2000;
	owner__allocated(&b, &b_first, 0x2000, block(300, 300));
	b.event_ns = 3000;
	cr_assert(owner__released(&b, 0x2000, 300, true, &out));
	b.event_ns = 4000;
	owner__allocated(&b, &b_second, 0x3000, block(200, 200));
	node_total__publish(&node, 1, &second_consumer, 10000);
	/* The first consumer has read nothing past 0: nothing can be merged yet. */
	node_total__publish(&node, 0, &first_consumer, 0);
	cr_expect(eq(u64, node.bytes, 0));
	a.event_ns = 3500;
	owner__allocated(&a, &a_site, 0x1000, block(100, 100));
	node_total__publish(&node, 0, &first_consumer, 10000);
	cr_expect(eq(u64, node.peak_bytes, 300));
	cr_expect(eq(u64, node.bytes, 300));
	cr_expect(eq(u64, owner_site__node_bytes(&a, &a.sites[a_site.site]), 0));
	cr_expect(eq(u64, owner_site__node_bytes(&b, &b.sites[b_first.site]), 300));
	cr_expect(eq(u64, owner_site__node_bytes(&b, &b.sites[b_second.site]), 0));
	cr_expect(eq(dbl, node.peak_seconds, 2e-6));
	/* b ends: it leaves the sum, its sites keep their values at the peak. */
	b.event_ns = 6000;
	owner__end(&b);
	node_total__publish(&node, 1, &second_consumer, 20000);
	node_total__publish(&node, 0, &first_consumer, 20000);
	cr_expect(eq(u64, node.bytes, 100));
	cr_expect(eq(u64, owner_site__node_bytes(&b, &b.sites[b_first.site]), 300));
	/* A new peak of 500 without b: b's sites held nothing then. */
	c.event_ns = 7000;
	owner__allocated(&c, &c_site, 0x4000, block(400, 400));
	node_total__publish(&node, 0, &first_consumer, UINT64_MAX);
	node_total__publish(&node, 1, &second_consumer, UINT64_MAX);
	cr_expect(eq(u64, node.peak_bytes, 500));
	cr_expect(eq(u64, node.peak_blocks, 2));
	cr_expect(eq(u64, owner_site__node_bytes(&b, &b.sites[b_first.site]), 0));
	cr_expect(eq(u64, owner_site__node_bytes(&a, &a.sites[a_site.site]), 100));
	cr_expect(eq(u64, owner_site__node_bytes(&c, &c.sites[c_site.site]), 400));
	owner__clear(&a);
	owner__clear(&b);
	owner__clear(&c);
	node_log__clear(&first_consumer);
	node_log__clear(&second_consumer);
	node_total__clear(&node);
}
