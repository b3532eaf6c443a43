// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Who holds the memory, through the cluster: an owner's sites as an agent sends them
 * (bounded, sent again only when changed), checked by the collector, stored and read back.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "owner.h"
#include "owner_wire.h"
#include "store.h"
#include "store_internal.h"
#include "store_read.h"
#include "wire.h"

TestSuite(owner_wire);

#define SITES 60 /* more than an agent sends */

static struct stack_frame frames[3] = {
	{ .library = "/lib/libc.so.6", .function = "malloc" },
	{ .library = "/app", .function = "site", .file = "app.c", .line = 12 },
	{ .library = "/app", .function = "main" },
};
static struct stack_record records[SITES];

/* Site i allocates i + 1 blocks of 100 bytes at addresses 1000 * i + j; site 0 one more. */
static void fill(struct owner *o)
{
	cr_assert(eq(int, owner__init(o, 0, 1.0), 0));
	for (int i = 0; i < SITES; i++) {
		records[i] = (struct stack_record){ .frames = frames, .nr = 3 };
		for (int j = 0; j <= i; j++)
			owner__allocated(o, &records[i], 1000 * i + j,
					 (struct live_block){ .usable = 100, .requested = 90 });
	}
}

static Heaptap__Batch batch_of(Heaptap__Process *p)
{
	Heaptap__Batch b = HEAPTAP__BATCH__INIT;

	b.has_seq = b.has_time = true;
	b.seq = 1;
	b.time = 1000;
	b.n_processes = 1;
	b.processes = calloc(1, sizeof(*b.processes));
	b.processes[0] = p;
	return b;
}

Test(owner_wire, the_largest_sites_go_and_only_when_changed)
{
	struct arena a = {};
	struct owner o;
	Heaptap__Owner *m;
	struct live_block block;
	uint64_t digest;
	size_t bytes;

	fill(&o);
	m = wire_owner(&a, &o, 1u << 20, &bytes);
	cr_assert(m != NULL);
	cr_expect(eq(u64, m->blocks, SITES * (SITES + 1) / 2));
	cr_expect(eq(u64, m->bytes, 100 * m->blocks));
	cr_assert(eq(sz, m->n_outstanding, WIRE_MAX_OWNER_SITES));
	cr_assert(eq(sz, m->n_peak, WIRE_MAX_OWNER_SITES));
	/* Largest first: the last site holds SITES blocks. */
	cr_expect(eq(u64, m->outstanding[0]->blocks, SITES));
	cr_expect(eq(u64, m->outstanding[0]->requested, 90 * SITES));
	cr_expect(eq(u64, m->outstanding[49]->blocks, SITES - 49));
	cr_expect(eq(sz, m->outstanding[0]->n_frames, 3));
	cr_expect(eq(str, m->outstanding[0]->frames[1]->function, "site"));
	cr_expect(eq(str, m->outstanding[0]->frames[1]->file, "app.c"));
	cr_expect(eq(u32, m->outstanding[0]->frames[1]->line, 12));
	digest = wire_owner_digest(m);
	arena_reset(&a);
	m = wire_owner(&a, &o, 1u << 20, &bytes);
	cr_expect(eq(u64, wire_owner_digest(m), digest), "unchanged: the same digest");
	arena_reset(&a);

	/* The largest site frees a block: no longer the peak's, and a new digest. */
	cr_assert(owner__released(&o, 1000 * (SITES - 1), 0, false, &block));
	m = wire_owner(&a, &o, 1u << 20, &bytes);
	cr_expect(ne(u64, wire_owner_digest(m), digest));
	cr_expect(eq(u64, m->outstanding[0]->blocks, SITES - 1));
	cr_expect(eq(u64, m->peak[0]->blocks, SITES), "the peak keeps what the site held");
	cr_expect(eq(u64, m->peak_blocks, SITES * (SITES + 1) / 2));
	arena_reset(&a);

	/* A small room: fewer sites, the largest first, never none. */
	m = wire_owner(&a, &o, 1, &bytes);
	cr_expect(eq(sz, m->n_outstanding, 1));
	cr_expect(eq(sz, m->n_peak, 1));
	cr_expect(eq(u64, m->outstanding[0]->blocks, SITES - 1));
	arena_reset(&a);
	m = wire_owner(&a, &o, 4096, &bytes);
	cr_expect(m->n_outstanding > 1 && m->n_outstanding < WIRE_MAX_OWNER_SITES);
	cr_expect(bytes < 4096 + 1024, "about the room asked: %zu bytes", bytes);
	arena_reset(&a);
	owner__clear(&o);
}

Test(owner_wire, the_collector_bounds_what_it_is_sent)
{
	struct arena a = {};
	Heaptap__Process p = HEAPTAP__PROCESS__INIT;
	Heaptap__Batch b = batch_of(&p);
	struct owner o;
	Heaptap__OwnerSite *site;
	size_t bytes, n_frames;
	char *function;

	fill(&o);
	p.has_key = true;
	p.owner = wire_owner(&a, &o, 1u << 20, &bytes);
	cr_assert(wire_check_batch(&b) == NULL);
	p.owner->n_outstanding = WIRE_MAX_OWNER_SITES + 1;
	cr_expect(eq(str, (char *)wire_check_batch(&b), "an owner list of more than 50 sites"));
	p.owner->n_outstanding = WIRE_MAX_OWNER_SITES;
	site = p.owner->peak[3];
	n_frames = site->n_frames;
	site->n_frames = WIRE_MAX_SITE_FRAMES + 1;
	cr_expect(eq(str, (char *)wire_check_batch(&b),
		     "an allocation site of more than 128 frames"));
	site->n_frames = n_frames;
	function = site->frames[2]->function;
	site->frames[2]->function = NULL;
	cr_expect(eq(str, (char *)wire_check_batch(&b), "a bad frame name"));
	site->frames[2]->function = function;
	p.owner->outstanding[1]->growth_bytes_per_second = NAN;
	cr_expect(eq(str, (char *)wire_check_batch(&b), "a site's growth that is not a number"));
	free(b.processes);
	arena_reset(&a);
	owner__clear(&o);
}

Test(owner_wire, stored_and_read_back)
{
	char path[] = "/tmp/heaptap-owner-XXXXXX";
	int fd = mkstemp(path);
	struct arena a = {};
	Heaptap__Process p = HEAPTAP__PROCESS__INIT;
	Heaptap__Batch b = batch_of(&p);
	struct store_agent agent;
	struct run_view v;
	struct store *st;
	struct owner o;
	const struct stored_owner *got;
	size_t bytes;
	bool applied;

	cr_assert(fd >= 0);
	close(fd);
	unlink(path);
	fill(&o);
	p.has_key = true;
	p.owner = wire_owner(&a, &o, 1u << 20, &bytes);
	cr_assert(eq(int, store__open(path, false, &st), 0));
	cr_assert(eq(int, store__agent_hello(st, 0xabc, "node", "app", 1, "entry", 1, &agent), 0));
	cr_assert(eq(int, store__begin(st), 0));
	cr_assert(eq(int, store__apply_batch(st, agent.id, "node", &b, &applied, NULL, NULL), 0));
	cr_assert(eq(int, store__commit(st), 0));
	cr_assert(eq(int, store__load_run(st, 0, 0, false, &v), 0));
	cr_assert(eq(sz, v.nr, 1));
	got = v.processes[0]->owner;
	cr_assert(got != NULL);
	cr_expect(eq(u64, got->blocks, p.owner->blocks));
	cr_expect(eq(u64, got->peak_bytes, p.owner->peak_bytes));
	cr_assert(eq(u32, got->nr_outstanding, WIRE_MAX_OWNER_SITES));
	cr_assert(eq(u32, got->nr_peak, WIRE_MAX_OWNER_SITES));
	for (uint32_t i = 0; i < got->nr_outstanding; i++) {
		cr_expect(eq(u64, got->outstanding[i].blocks, p.owner->outstanding[i]->blocks));
		cr_expect(eq(u64, got->outstanding[i].bytes, p.owner->outstanding[i]->bytes));
		cr_expect(eq(u64, got->outstanding[i].requested,
			     p.owner->outstanding[i]->requested));
		cr_expect(eq(u64, got->peak[i].bytes, p.owner->peak[i]->bytes));
	}
	cr_expect(eq(str, (char *)json_object_to_json_string_ext(got->outstanding[0].frames,
								 JSON_C_TO_STRING_PLAIN),
		     "[{\"library\":\"\\/lib\\/libc.so.6\",\"function\":\"malloc\"},"
		     "{\"library\":\"\\/app\",\"function\":\"site\",\"file\":\"app.c\","
		     "\"line\":12},{\"library\":\"\\/app\",\"function\":\"main\"}]"));
	run_view__clear(&v);

	/* A damaged site (frames not an array): the run is refused, not half read. */
	cr_assert(eq(int, sqlite3_exec(store__db(st), "UPDATE owner_sites SET frames = "
					"'{\"function\": 1}' WHERE position = 7", NULL, NULL,
				       NULL), SQLITE_OK));
	cr_expect(eq(int, store__load_run(st, 0, 0, false, &v), -EIO));
	store__close(st);
	unlink(path);
	free(b.processes);
	arena_reset(&a);
	owner__clear(&o);
}
