// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The OS view and --allocator accounts through the cluster: as an agent sends them,
 * checked by the collector, stored and read back exactly.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "os_wire.h"
#include "store.h"
#include "store_internal.h"
#include "store_read.h"
#include "wire.h"

TestSuite(os_wire);

static void charge(struct mapping_stats *ms, enum ht_os_call call, int64_t bytes, uint32_t tid,
		   const char *function)
{
	struct os_move m = { .call = call };

	m.change.bytes[MAP_KIND_ANON] = bytes;
	cr_assert(eq(int, mapping_stats__charge(ms, &(struct os_charge){
		.move = &m, .tid = tid, .thread_name = tid == 1 ? "main" : "worker",
		.library = "/app", .function = function }), 0));
}

/* Two threads, two functions; an API with a thread and a function of its own. */
static void fill(struct mapping_stats *ms, struct custom_allocs **apis)
{
	struct custom_account *acct;
	struct balance b = { .current = 300, .min = -5, .max = 700, .requested = 900 };

	charge(ms, HT_OS_MMAP, 1 << 20, 1, "grow");
	charge(ms, HT_OS_MUNMAP, -4096, 2, "shrink");
	charge(ms, HT_OS_MMAP, 8192, 2, "grow");
	ms->total.released_calls = 3;
	cr_assert(eq(int, mapping_stats__add_rss(ms, 0.5, 40960), 0));
	cr_assert(eq(int, mapping_stats__add_rss(ms, 1.5, 20480), 0));
	acct = custom_allocs__add_stored(apis, "pool", "/lib/libpool.so");
	cr_assert(acct != NULL);
	b.calls[custom_allocs__slot(SPEC_MALLOC)] = 7;
	b.calls[custom_allocs__slot(SPEC_BRK)] = 2;
	acct->stats.total = b;
	acct->freed_unknown = 4;
	cr_assert(eq(int, accountant__set_thread(&acct->stats, 11, "w", &b), 0));
	cr_assert(eq(int, accountant__set_function(&acct->stats, "/app", "get", &b), 0));
}

/* One integer of SQL on the store's database (-1: no row). */
static long long stored_integer(struct store *st, const char *sql)
{
	struct db_stmt *s = db__prepare(store__db(st), sql, 0);
	long long v = -1;

	cr_assert(s != NULL);
	if (db_step(s) == DB_ROW)
		v = db_column_int64(s, 0);
	db_stmt__finalize(s);
	return v;
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

static const struct map_group *map_group(const struct mapping_stats *ms,
					 enum map_group_kind kind, uint32_t tid,
					 const char *function)
{
	const struct map_group *g, *tmp;

	HASH_ITER(hh, ms->groups, g, tmp) {
		if (g->kind == kind && (kind == MAP_GROUP_THREAD ? g->tid == tid :
				       !function || (g->function && !strcmp(g->function, function))))
			return g;
	}
	return NULL;
}

Test(os_wire, stored_and_read_back)
{
	char path[] = "/tmp/heaptap-os-XXXXXX";
	int fd = mkstemp(path);
	struct mapping_stats ms = {};
	struct custom_allocs *apis = NULL;
	struct arena a = {};
	Heaptap__Process p = HEAPTAP__PROCESS__INIT;
	Heaptap__Batch b = batch_of(&p);
	struct store_agent agent;
	struct run_view v;
	struct store *st;
	const struct map_group *g, *want;
	struct custom_account *accts;
	size_t nr;
	bool applied;

	cr_assert(fd >= 0);
	close(fd);
	unlink(path);
	fill(&ms, &apis);
	p.has_key = true;
	p.mappings = wire_mappings(&a, &ms);
	p.allocators = wire_allocators(&a, apis);
	cr_assert(p.mappings && p.allocators);
	cr_assert(eq(ptr, (void *)wire_check_batch(&b), NULL));
	cr_assert(eq(int, store__open(path, false, &st), 0));
	cr_assert(eq(int, store__agent_hello(st, 0xabc, "node", "app", 1, "entry", 1, &agent), 0));
	cr_assert(eq(int, store__begin(st), 0));
	cr_assert(eq(int, store__apply_batch(st, agent.id, "node", &b, &applied, NULL, NULL), 0));
	cr_assert(eq(int, store__commit(st), 0));
	cr_assert(eq(int, store__load_run(st, 0, 0, false, &v), 0));
	cr_assert(eq(sz, v.nr, 1));

	/* The OS view: the total and each group, field for field. */
	cr_expect(eq(int, memcmp(&v.processes[0]->t.mappings.total, &ms.total, sizeof(ms.total)),
		     0));
	want = map_group(&ms, MAP_GROUP_THREAD, 2, NULL);
	g = map_group(&v.processes[0]->t.mappings, MAP_GROUP_THREAD, 2, NULL);
	cr_assert(g && want);
	cr_expect(eq(str, (char *)g->name, "worker"));
	cr_expect(eq(int, memcmp(&g->bal, &want->bal, sizeof(g->bal)), 0));
	want = map_group(&ms, MAP_GROUP_FUNCTION, 0, "grow");
	g = map_group(&v.processes[0]->t.mappings, MAP_GROUP_FUNCTION, 0, "grow");
	cr_assert(g && want);
	cr_expect(eq(str, (char *)g->library, "/app"));
	cr_expect(eq(i64, g->bal.current, (1 << 20) + 8192));
	cr_expect(eq(int, memcmp(&g->bal, &want->bal, sizeof(g->bal)), 0));
	cr_expect(eq(i64, stored_integer(st, "SELECT rss FROM mapping_rss"), 20480));
	cr_expect(eq(i64, stored_integer(st, "SELECT rss_max FROM mapping_rss"), 40960));

	/* The API: its account as the agent had it. */
	accts = custom_allocs__accounts(v.processes[0]->t.custom, &nr);
	cr_assert(eq(sz, nr, 1));
	cr_expect(eq(str, (char *)accts[0].spec->name, "pool"));
	cr_expect(eq(str, (char *)accts[0].library, "/lib/libpool.so"));
	cr_expect(eq(u64, accts[0].freed_unknown, 4));
	cr_expect(eq(int, memcmp(&accts[0].stats.total, &custom_allocs__accounts(apis, &nr)[0]
							  .stats.total,
				 sizeof(struct balance)), 0));
	cr_expect(eq(u32, HASH_COUNT(accts[0].stats.threads), 1));
	cr_expect(eq(u32, HASH_COUNT(accts[0].stats.functions), 1));
	run_view__clear(&v);
	store__close(st);
	unlink(path);
	free(b.processes);
	arena_reset(&a);
	mapping_stats__clear(&ms);
	custom_allocs__free(apis);
}

/* What an agent never sends is refused before anything of it is stored. */
Test(os_wire, the_collector_bounds_what_it_is_sent)
{
	struct mapping_stats ms = {};
	struct custom_allocs *apis = NULL;
	struct arena a = {};
	Heaptap__Process p = HEAPTAP__PROCESS__INIT;
	Heaptap__Batch b = batch_of(&p);
	Heaptap__AllocatorApi *many[CUSTOM_ALLOCS_MAX + 1];
	Heaptap__MapBalance *total;
	uint64_t digest;

	fill(&ms, &apis);
	p.has_key = true;
	p.mappings = wire_mappings(&a, &ms);
	p.allocators = wire_allocators(&a, apis);
	cr_assert(eq(ptr, (void *)wire_check_batch(&b), NULL));
	digest = wire_message_digest(&p.mappings->base);
	cr_expect(eq(u64, digest, wire_message_digest(&wire_mappings(&a, &ms)->base)),
		  "the same figures, the same digest: not sent again");

	total = p.mappings->total;
	total->n_calls = HT_NR_OS_CALLS + 1;
	cr_expect(ne(ptr, (void *)wire_check_batch(&b), NULL), "a sixth call count");
	total->n_calls = HT_NR_OS_CALLS;
	total->released_bytes = (uint64_t)INT64_MAX + 1;
	cr_expect(ne(ptr, (void *)wire_check_batch(&b), NULL), "a count over 2^63");
	total->released_bytes = 0;
	total->released_calls++;
	cr_expect(ne(u64, digest, wire_message_digest(&p.mappings->base)), "changed: sent");
	p.mappings->functions[0]->function = NULL;
	cr_expect(ne(ptr, (void *)wire_check_batch(&b), NULL), "a function without its name");
	p.mappings->functions[0]->function = "grow";
	p.mappings->threads[0]->balance = NULL;
	cr_expect(ne(ptr, (void *)wire_check_batch(&b), NULL), "a group without figures");
	p.mappings = NULL;

	for (size_t i = 0; i <= CUSTOM_ALLOCS_MAX; i++)
		many[i] = p.allocators->apis[0];
	p.allocators->apis = many;
	p.allocators->n_apis = 2;
	cr_expect(ne(ptr, (void *)wire_check_batch(&b), NULL), "one API named twice");
	p.allocators->n_apis = CUSTOM_ALLOCS_MAX + 1;
	cr_expect(ne(ptr, (void *)wire_check_batch(&b), NULL), "nine APIs");
	p.allocators->n_apis = 1;
	many[0]->total->requested = UINT64_MAX;
	cr_expect(ne(ptr, (void *)wire_check_batch(&b), NULL), "requested bytes over 2^63");
	many[0]->total->requested = 0;
	many[0]->allocator = NULL;
	cr_expect(ne(ptr, (void *)wire_check_batch(&b), NULL), "an API without its name");
	free(b.processes);
	arena_reset(&a);
	mapping_stats__clear(&ms);
	custom_allocs__free(apis);
}
