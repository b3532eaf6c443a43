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
#include "oom_record.h"
#include "owner.h"
#include "owner_text.h"
#include "owner_wire.h"
#include "store.h"
#include "store_internal.h"
#include "store_read.h"
#include "stored_owner_report.h"
#include "wire.h"

TestSuite(owner_wire);

#define SITES 60 /* more than an agent sends */

static struct stack_frame frames[3] = {
	{ .library = "/lib/libc.so.6", .function = "malloc" },
	{ .library = "/app", .function = "site", .file = "app.c", .line = 12 },
	{ .library = "/app", .function = "main" },
};
static struct stack_record records[SITES];

#define FREED_BEFORE 3 /* frees of blocks never seen allocated, of 40 bytes each */

/*
 * Site i allocates i + 1 blocks of 100 bytes at addresses 1000 * i + j, and frees 3 blocks
 * it never saw allocated.
 */
static void fill(struct owner *o)
{
	struct live_block out;

	cr_assert(eq(int, owner__init(o, 0, 1.0), 0));
	for (int i = 0; i < SITES; i++) {
		records[i] = (struct stack_record){ .frames = frames, .nr = 3 };
		for (int j = 0; j <= i; j++)
			owner__allocated(o, &records[i], 1000 * i + j,
					 (struct live_block){ .usable = 100, .requested = 90 });
	}
	for (int i = 0; i < FREED_BEFORE; i++)
		cr_assert(not(owner__released(o, 0x900000 + 16 * i, 40, true, &out)));
}

static int db_version(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int version = -1;

	cr_assert(eq(int, sqlite3_open(path, &db), SQLITE_OK));
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return version;
}

static void set_version(const char *path, int version)
{
	char sql[64];
	sqlite3 *db;

	snprintf(sql, sizeof(sql), "PRAGMA user_version=%d;", version);
	cr_assert(eq(int, sqlite3_open(path, &db), SQLITE_OK));
	cr_assert(eq(int, sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK));
	sqlite3_close(db);
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
	m = wire_owner(&a, &o, NULL, 1u << 20, &bytes);
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
	/* What each site allocated, the largest first; the frees of blocks never seen. */
	cr_assert(eq(sz, m->n_allocated, WIRE_MAX_OWNER_SITES));
	cr_expect(eq(u64, m->allocated[0]->blocks, SITES));
	cr_expect(eq(u64, m->allocated[0]->bytes, 100 * SITES));
	cr_expect(eq(u64, m->allocated[49]->blocks, SITES - 49));
	cr_assert(m->freed_before_tracing != NULL);
	cr_expect(eq(u64, m->freed_before_tracing->calls, FREED_BEFORE));
	cr_expect(eq(u64, m->freed_before_tracing->bytes, 40 * FREED_BEFORE));
	cr_expect(m->freed_before_tracing->bytes_known);
	digest = wire_owner_digest(m);
	arena_reset(&a);
	m = wire_owner(&a, &o, NULL, 1u << 20, &bytes);
	cr_expect(eq(u64, wire_owner_digest(m), digest), "unchanged: the same digest");
	arena_reset(&a);

	/* The largest site frees a block: no longer the peak's, and a new digest. */
	cr_assert(owner__released(&o, 1000 * (SITES - 1), 0, false, &block));
	m = wire_owner(&a, &o, NULL, 1u << 20, &bytes);
	cr_expect(ne(u64, wire_owner_digest(m), digest));
	cr_expect(eq(u64, m->outstanding[0]->blocks, SITES - 1));
	cr_expect(eq(u64, m->peak[0]->blocks, SITES), "the peak keeps what the site held");
	cr_expect(eq(u64, m->peak_blocks, SITES * (SITES + 1) / 2));
	cr_expect(eq(u64, m->allocated[0]->blocks, SITES), "what it allocated stays");
	arena_reset(&a);

	/* A small room: fewer sites, the largest first, never none. */
	m = wire_owner(&a, &o, NULL, 1, &bytes);
	cr_expect(eq(sz, m->n_outstanding, 1));
	cr_expect(eq(sz, m->n_peak, 1));
	cr_expect(eq(sz, m->n_allocated, 1));
	cr_expect(eq(u64, m->outstanding[0]->blocks, SITES - 1));
	arena_reset(&a);
	m = wire_owner(&a, &o, NULL, 4096, &bytes);
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
	p.owner = wire_owner(&a, &o, NULL, 1u << 20, &bytes);
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
	p.owner->outstanding[1]->growth_bytes_per_second = 0;
	p.owner->n_allocated = WIRE_MAX_OWNER_SITES + 1;
	cr_expect(eq(str, (char *)wire_check_batch(&b), "an owner list of more than 50 sites"));
	p.owner->n_allocated = WIRE_MAX_OWNER_SITES;
	p.owner->allocated[5]->bytes = (uint64_t)INT64_MAX + 1;
	cr_expect(eq(str, (char *)wire_check_batch(&b), "a site's count over 2^63"));
	p.owner->allocated[5]->bytes = 0;
	p.owner->freed_before_tracing->calls = UINT64_MAX;
	cr_expect(eq(str, (char *)wire_check_batch(&b), "an owner's count over 2^63"));
	p.owner->freed_before_tracing->calls = 0;
	cr_expect(wire_check_batch(&b) == NULL, "all mended");
	free(b.processes);
	arena_reset(&a);
	owner__clear(&o);
}

/* The stored sites' text: run's format, --site-depth frames per site. */
static void expect_text(const struct stored_owner *got)
{
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	owner_text_set_depth(1);
	stored_owner__text(out, got, "/lib/libc.so.6");
	fclose(out);
	cr_expect(strstr(text, "  5.9K in 60 blocks (5.3K requested)\n        site (app) app.c:12\n"
				 "  5.8K in 59 blocks") != NULL, "%s", text);
	cr_expect(strstr(text, "main (app)") == NULL, "one frame a site:\n%s", text);
	cr_expect(strstr(text, "Freed, allocated before tracing: 3 calls, 120 bytes\n") != NULL,
		  "%s", text);
	free(text);
	out = open_memstream(&text, &len);
	owner_text_set_depth(6);
	stored_owner__text(out, got, "/lib/libc.so.6");
	fclose(out);
	cr_expect(strstr(text, "        site (app) app.c:12\n        main (app)\n") != NULL, "%s",
		  text);
	free(text);
}

/* path (a mkstemp template) made the name of a database file not there yet. */
static void new_db_path(char *path)
{
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	close(fd);
	unlink(path);
}

/* b, as one agent sends it, stored in a new store at path, left open in *st. */
static void store_batch(const char *path, Heaptap__Batch *b, struct store **st)
{
	struct store_agent agent;
	bool applied;

	cr_assert(eq(int, store__open(path, false, st), 0));
	cr_assert(eq(int, store__agent_hello(*st, 0xabc, "node", "app", 1, "entry", 1, &agent), 0));
	cr_assert(eq(int, store__begin(*st), 0));
	cr_assert(eq(int, store__apply_batch(*st, agent.id, "node", b, &applied, NULL, NULL), 0));
	cr_assert(eq(int, store__commit(*st), 0));
}

Test(owner_wire, stored_and_read_back)
{
	char path[] = "/tmp/heaptap-owner-XXXXXX";
	struct arena a = {};
	Heaptap__Process p = HEAPTAP__PROCESS__INIT;
	Heaptap__Batch b = batch_of(&p);
	struct run_view v;
	struct store *st;
	struct owner o;
	const struct stored_owner *got;
	size_t bytes;

	new_db_path(path);
	fill(&o);
	p.has_key = true;
	p.owner = wire_owner(&a, &o, NULL, 1u << 20, &bytes);
	store_batch(path, &b, &st);
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
	cr_assert(eq(u32, got->nr_allocated, WIRE_MAX_OWNER_SITES));
	for (uint32_t i = 0; i < got->nr_allocated; i++) {
		cr_expect(eq(u64, got->allocated[i].blocks, p.owner->allocated[i]->blocks));
		cr_expect(eq(u64, got->allocated[i].bytes, p.owner->allocated[i]->bytes));
	}
	cr_expect(got->freed_known);
	cr_expect(eq(u64, got->freed_calls, FREED_BEFORE));
	cr_expect(eq(u64, got->freed_bytes, 40 * FREED_BEFORE));
	cr_expect(got->freed_bytes_known);
	expect_text(got);
	cr_expect(eq(str, (char *)json_object_to_json_string_ext(got->outstanding[0].frames,
								 JSON_C_TO_STRING_PLAIN),
		     "[{\"library\":\"\\/lib\\/libc.so.6\",\"function\":\"malloc\"},"
		     "{\"library\":\"\\/app\",\"function\":\"site\",\"file\":\"app.c\","
		     "\"line\":12},{\"library\":\"\\/app\",\"function\":\"main\"}]"));
	run_view__clear(&v);

	/* A damaged site (frames not an array): the run is refused, not half read. */
	cr_assert(eq(int, db__exec(store__db(st), "UPDATE owner_sites SET frames = "
					"'{\"function\": 1}' WHERE position = 7"), 0));
	cr_expect(eq(int, store__load_run(st, 0, 0, false, &v), -EIO));
	store__close(st);
	unlink(path);
	free(b.processes);
	arena_reset(&a);
	owner__clear(&o);
}

/* The owner table's freed_* columns dropped: a file as a schema-2 collector wrote it. */
static void make_schema_2(const char *path)
{
	sqlite3 *db;

	cr_assert(eq(int, sqlite3_open(path, &db), SQLITE_OK));
	cr_assert(eq(int, sqlite3_exec(db, "ALTER TABLE owner DROP COLUMN freed_calls;"
				       "ALTER TABLE owner DROP COLUMN freed_bytes;"
				       "ALTER TABLE owner DROP COLUMN freed_bytes_known;"
				       "PRAGMA user_version=2;", NULL, NULL, NULL), SQLITE_OK),
		  "%s", sqlite3_errmsg(db));
	sqlite3_close(db);
}

/*
 * A schema-2 file (its agents sent no frees before tracing) reads as before, and a
 * collector opening it adds schema 3's columns, the old rows kept; a newer file is refused.
 */
Test(owner_wire, a_schema_2_file_is_read_and_brought_up_to_date)
{
	char path[] = "/tmp/heaptap-owner-XXXXXX";
	struct arena a = {};
	Heaptap__Process p = HEAPTAP__PROCESS__INIT;
	Heaptap__Batch b = batch_of(&p);
	struct run_view v;
	struct store *st;
	struct owner o;
	size_t bytes;

	new_db_path(path);
	fill(&o);
	p.has_key = true;
	p.owner = wire_owner(&a, &o, NULL, 1u << 20, &bytes);
	store_batch(path, &b, &st);
	store__close(st);
	make_schema_2(path);

	cr_assert(eq(int, store__open(path, true, &st), 0), "a reader takes schema 2");
	cr_assert(eq(int, store__load_run(st, 0, 0, false, &v), 0));
	cr_assert(v.processes[0]->owner != NULL);
	cr_expect(eq(u64, v.processes[0]->owner->blocks, p.owner->blocks));
	cr_expect(not(v.processes[0]->owner->freed_known));
	run_view__clear(&v);
	store__close(st);

	cr_assert(eq(int, store__open(path, false, &st), 0), "a collector brings it up to date");
	cr_expect(eq(int, db_version(path), STORE_SCHEMA_VERSION));
	cr_assert(eq(int, store__load_run(st, 0, 0, false, &v), 0));
	cr_expect(eq(u64, v.processes[0]->owner->peak_bytes, p.owner->peak_bytes));
	cr_expect(not(v.processes[0]->owner->freed_known), "the old row sent none");
	run_view__clear(&v);
	store__close(st);

	set_version(path, STORE_SCHEMA_VERSION + 1);
	cr_expect(eq(int, store__open(path, false, &st), -EIO), "a newer file is refused");
	cr_expect(eq(int, db_version(path), STORE_SCHEMA_VERSION + 1), "and left as it was");
	unlink(path);
	free(b.processes);
	arena_reset(&a);
	owner__clear(&o);
}

/*
 * The OOM killer's choice: recorded from the owner view, sent, checked, stored (schema 6)
 * and read back with its sites, totals, time and memory cgroup.
 */
Test(owner_wire, an_oom_kill_stored_and_read_back)
{
	char path[] = "/tmp/heaptap-oom-XXXXXX";
	struct arena a = {};
	Heaptap__Process p = HEAPTAP__PROCESS__INIT;
	Heaptap__Batch b = batch_of(&p);
	struct oom_record oom = {};
	struct run_view v;
	struct store *st;
	struct owner o;
	const struct stored_owner *got;
	json_object *j;
	size_t bytes;

	new_db_path(path);
	fill(&o);
	oom_record__take(&oom, &o, 12.5);
	oom.cgroup = (struct cgroup_memory){ .version = 1, .path = "/job_7", .usage = 4096,
					     .limit = 8192, .usage_known = true };
	p.has_key = true;
	p.owner = wire_owner(&a, &o, &oom, 1u << 20, &bytes);
	cr_assert(p.owner && p.owner->oom);
	cr_assert(eq(sz, p.owner->oom->n_sites, OOM_SITES));
	cr_expect(eq(u64, p.owner->oom->sites[0]->blocks, SITES), "the largest site first");
	cr_assert(wire_check_batch(&b) == NULL);
	p.owner->oom->time = NAN;
	cr_expect(wire_check_batch(&b) != NULL, "a time that is not a number");
	p.owner->oom->time = 12.5;
	store_batch(path, &b, &st);
	cr_assert(eq(int, store__load_run(st, 0, 0, false, &v), 0));
	got = v.processes[0]->owner;
	cr_assert(got != NULL && got->oom_killed);
	cr_expect(eq(dbl, got->oom_time, 12.5));
	cr_expect(eq(u64, got->oom_bytes, o.bytes));
	cr_expect(eq(u64, got->oom_blocks, o.blocks));
	cr_assert(eq(u32, got->nr_oom, OOM_SITES));
	for (uint32_t i = 0; i < got->nr_oom; i++)
		cr_expect(eq(u64, got->oom_sites[i].bytes, oom.sites[i].bytes));
	cr_assert(got->oom_cgroup != NULL);
	cr_expect(json_object_object_get_ex(got->oom_cgroup, "limit_bytes", &j) &&
		  json_object_get_int64(j) == 8192);
	cr_expect(json_object_object_get_ex(got->oom_cgroup, "max_usage_bytes", &j) && !j,
		  "unread: null");
	run_view__clear(&v);
	store__close(st);
	unlink(path);
	free(b.processes);
	arena_reset(&a);
	owner__clear(&o);
}

/* A schema-5 file (no OOM columns) reads as not chosen, and a collector adds the columns. */
Test(owner_wire, a_schema_5_file_gains_the_oom_columns)
{
	char path[] = "/tmp/heaptap-oom5-XXXXXX";
	struct arena a = {};
	Heaptap__Process p = HEAPTAP__PROCESS__INIT;
	Heaptap__Batch b = batch_of(&p);
	struct run_view v;
	struct store *st;
	struct owner o;
	sqlite3 *db;
	size_t bytes;

	new_db_path(path);
	fill(&o);
	p.has_key = true;
	p.owner = wire_owner(&a, &o, NULL, 1u << 20, &bytes);
	store_batch(path, &b, &st);
	store__close(st);
	cr_assert(eq(int, sqlite3_open(path, &db), SQLITE_OK));
	cr_assert(eq(int, sqlite3_exec(db, "ALTER TABLE owner DROP COLUMN oom_time;"
				       "ALTER TABLE owner DROP COLUMN oom_blocks;"
				       "ALTER TABLE owner DROP COLUMN oom_bytes;"
				       "ALTER TABLE owner DROP COLUMN oom_cgroup;"
				       "PRAGMA user_version=5;", NULL, NULL, NULL), SQLITE_OK),
		  "%s", sqlite3_errmsg(db));
	sqlite3_close(db);
	cr_assert(eq(int, store__open(path, true, &st), 0), "read as it is");
	cr_assert(eq(int, store__load_run(st, 0, 0, false, &v), 0));
	cr_assert(v.processes[0]->owner != NULL);
	cr_expect(not(v.processes[0]->owner->oom_killed));
	cr_expect(eq(u32, v.processes[0]->owner->nr_outstanding, WIRE_MAX_OWNER_SITES));
	run_view__clear(&v);
	store__close(st);
	cr_assert(eq(int, store__open(path, false, &st), 0), "a collector brings it up to date");
	store__close(st);
	cr_expect(eq(int, db_version(path), STORE_SCHEMA_VERSION));
	unlink(path);
	free(b.processes);
	arena_reset(&a);
	owner__clear(&o);
}
