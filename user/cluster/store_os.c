// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "custom_allocs.h"
#include "log.h"
#include "os_wire.h"
#include "run_wire.h"
#include "store_sql.h"
#include "store_os.h"
#include "store_schema.h"

/* Run sql on process (bound to ?1): a delete. 0 or -EIO. */
static int clear(struct store *st, const char *sql, int64_t process)
{
	struct db_stmt *s;
	int err;

	if (!(s = db__prepare(store__db(st), sql, 0)))
		return store_db_error(st, sql);
	db_bind_int64(s, 1, process);
	err = store_run(st, s, "clear the OS view's groups");
	db_stmt__finalize(s);
	return err;
}

/* Bind group g's key and figures into a prepared mapping_groups insert. */
static void bind_map_group(struct db_stmt *s, int64_t process, int kind, const Heaptap__MapGroup *g,
			   const Heaptap__MapBalance *w)
{
	struct map_balance b;

	map_balance_from_wire(w, &b);
	db_bind_int64(s, 1, process);
	db_bind_int(s, 2, kind);
	db_bind_int64(s, 3, g && kind == STORE_THREAD ? g->tid : 0);
	store_bind_text(s, 4, g && g->library ? g->library : "");
	store_bind_text(s, 5, g && g->function ? g->function : "");
	if (g && kind == STORE_THREAD)
		store_bind_text(s, 6, g->name);
	else
		db_bind_null(s, 6);
	db_bind_int64(s, 7, b.current);
	db_bind_int64(s, 8, b.min);
	db_bind_int64(s, 9, b.max);
	for (int k = 0; k < NR_MAP_KINDS; k++)
		db_bind_int64(s, 10 + k, b.kinds[k]);
	db_bind_int64(s, 13, b.heap);
	for (int c = 0; c < HT_NR_OS_CALLS; c++)
		db_bind_int64(s, 14 + c, (int64_t)b.calls[c]);
	db_bind_int64(s, 19, (int64_t)b.released_calls);
	db_bind_int64(s, 20, (int64_t)b.released_bytes);
	db_bind_int64(s, 21, (int64_t)b.before_tracing_calls);
	db_bind_int64(s, 22, (int64_t)b.before_tracing_bytes);
}

static const char map_insert[] =
	"INSERT INTO mapping_groups (process, kind, a, library, function, name, "
	"current, min, max, anonymous, file, brk, malloc_own, mmap_calls, munmap_calls, "
	"mremap_calls, brk_calls, madvise_calls, released_calls, released_bytes, "
	"before_tracing_calls, before_tracing_bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
	"?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22) "
	"ON CONFLICT DO NOTHING"; /* a message names each group once */

int store_os__put_mappings(struct store *st, int64_t process, const Heaptap__Mappings *m)
{
	Heaptap__MapGroup *const *lists[] = { m->threads, m->libraries, m->functions };
	const size_t counts[] = { m->n_threads, m->n_libraries, m->n_functions };
	const int kinds[] = { STORE_THREAD, STORE_LIBRARY, STORE_FUNCTION };
	struct db_stmt *s;
	int err;

	if (clear(st, "DELETE FROM mapping_groups WHERE process = ?1", process))
		return -EIO;
	if (!(s = db__prepare(store__db(st), map_insert, 0)))
		return store_db_error(st, "store the OS view");
	bind_map_group(s, process, STORE_TOTAL, NULL, m->total);
	err = store_run(st, s, "store the OS view");
	for (int l = 0; l < 3 && !err; l++) {
		for (size_t i = 0; i < counts[l] && !err; i++) {
			bind_map_group(s, process, kinds[l], lists[l][i], lists[l][i]->balance);
			err = store_run(st, s, "store the OS view");
		}
	}
	db_stmt__finalize(s);
	if (err || !m->has_rss)
		return err ? -EIO : 0;
	if (!(s = db__prepare(store__db(st), "INSERT INTO mapping_rss (process, rss, "
				   "rss_max) VALUES (?1, ?2, ?3) ON CONFLICT (process) DO UPDATE SET "
				   "rss = ?2, rss_max = ?3", 0)))
		return store_db_error(st, "store the RSS");
	db_bind_int64(s, 1, process);
	db_bind_int64(s, 2, (int64_t)m->rss);
	db_bind_int64(s, 3, (int64_t)m->rss_max);
	err = store_run(st, s, "store the RSS");
	db_stmt__finalize(s);
	return err ? -EIO : 0;
}

/* An API's calls by kind, as the columns malloc, calloc, ... brk hold them. */
static void bind_api_group(struct db_stmt *s, int64_t process, const char *api, int kind,
			   uint32_t tid, const char *name, const char *library,
			   const char *function, const Heaptap__Balance *w)
{
	struct balance b;

	balance_from_wire(w, &b);
	db_bind_int64(s, 1, process);
	store_bind_text(s, 2, api);
	db_bind_int(s, 3, kind);
	db_bind_int64(s, 4, tid);
	store_bind_text(s, 5, library ? library : "");
	store_bind_text(s, 6, function ? function : "");
	if (name)
		store_bind_text(s, 7, name);
	else
		db_bind_null(s, 7);
	db_bind_int64(s, 8, b.current);
	db_bind_int64(s, 9, b.min);
	db_bind_int64(s, 10, b.max);
	db_bind_int64(s, 11, (int64_t)b.requested);
	for (int k = 0; k < SPEC_NR_KINDS; k++)
		db_bind_int64(s, 12 + k, (int64_t)b.calls[custom_allocs__slot(k)]);
}

static const char api_insert[] =
	"INSERT INTO allocator_groups (process, allocator, kind, a, library, "
	"function, name, current, min, max, requested, malloc, calloc, realloc, free, memalign, "
	"posix_memalign, brk) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
	"?14, ?15, ?16, ?17, ?18) ON CONFLICT DO NOTHING"; /* each group once */

static int put_api(struct store *st, struct db_stmt *s, int64_t process,
		   const Heaptap__AllocatorApi *api)
{
	const char *name = api->allocator;
	int err;

	bind_api_group(s, process, name, STORE_TOTAL, 0, NULL, NULL, NULL, api->total);
	err = store_run(st, s, "store an allocator's account");
	for (size_t i = 0; i < api->n_threads && !err; i++) {
		bind_api_group(s, process, name, STORE_THREAD, api->threads[i]->tid,
			       api->threads[i]->name ? api->threads[i]->name : "", NULL, NULL,
			       api->threads[i]->balance);
		err = store_run(st, s, "store an allocator's account");
	}
	for (size_t i = 0; i < api->n_libraries && !err; i++) {
		bind_api_group(s, process, name, STORE_LIBRARY, 0, NULL, api->libraries[i]->library,
			       NULL, api->libraries[i]->balance);
		err = store_run(st, s, "store an allocator's account");
	}
	for (size_t i = 0; i < api->n_functions && !err; i++) {
		const Heaptap__Function *f = api->functions[i];

		bind_api_group(s, process, name, STORE_FUNCTION, 0, NULL, f->library, f->function,
			       f->balance);
		err = store_run(st, s, "store an allocator's account");
	}
	return err;
}

int store_os__put_allocators(struct store *st, int64_t process, const Heaptap__AllocatorApis *m)
{
	struct db_stmt *s, *a;
	int err = 0;

	if (clear(st, "DELETE FROM allocator_groups WHERE process = ?1", process) ||
	    clear(st, "DELETE FROM allocators WHERE process = ?1", process))
		return -EIO;
	if (!(s = db__prepare(store__db(st), api_insert, 0)))
		return store_db_error(st, "store an allocator's account");
	if (!(a = db__prepare(store__db(st), "INSERT INTO allocators (process, allocator, "
				   "position, library, freed_unknown) VALUES (?1, ?2, ?3, ?4, ?5)", 0))) {
		db_stmt__finalize(s);
		return store_db_error(st, "store an allocator");
	}
	for (size_t i = 0; i < m->n_apis && !err; i++) {
		db_bind_int64(a, 1, process);
		store_bind_text(a, 2, m->apis[i]->allocator);
		db_bind_int64(a, 3, (int64_t)i);
		store_bind_text(a, 4, m->apis[i]->library);
		db_bind_int64(a, 5, (int64_t)m->apis[i]->freed_unknown);
		err = store_run(st, a, "store an allocator") || put_api(st, s, process, m->apis[i]);
	}
	db_stmt__finalize(s);
	db_stmt__finalize(a);
	return err ? -EIO : 0;
}

/* A file before schema 4 has no such tables: nothing stored. */
static int prepare_read(struct store *st, const char *sql, struct db_stmt **s, const char *what)
{
	struct db *db = store__db(st);

	if ((*s = db__prepare(db, sql, 0)))
		return 0;
	*s = NULL;
	return strstr(db__errmsg(db), "no such table") ? 0 : store_db_error(st, what);
}

static const char *text_of(struct db_stmt *s, int i)
{
	const char *t = db_column_text(s, i);

	return t ? t : "";
}

/* The stored groups of the OS view into ms. 0, -EINVAL (a damaged row) or -ENOMEM. */
static int load_map_group(struct db_stmt *s, struct mapping_stats *ms)
{
	static const enum map_group_kind kinds[] = {
		[STORE_THREAD] = MAP_GROUP_THREAD,
		[STORE_LIBRARY] = MAP_GROUP_LIBRARY,
		[STORE_FUNCTION] = MAP_GROUP_FUNCTION,
	};
	int kind = db_column_int(s, 0);
	struct map_balance b = {
		.current = db_column_int64(s, 5),
		.min = db_column_int64(s, 6),
		.max = db_column_int64(s, 7),
		.heap = db_column_int64(s, 11),
		.released_calls = db_column_int64(s, 17),
		.released_bytes = db_column_int64(s, 18),
		.before_tracing_calls = db_column_int64(s, 19),
		.before_tracing_bytes = db_column_int64(s, 20),
	};

	for (int k = 0; k < NR_MAP_KINDS; k++)
		b.kinds[k] = db_column_int64(s, 8 + k);
	for (int c = 0; c < HT_NR_OS_CALLS; c++)
		b.calls[c] = db_column_int64(s, 12 + c);
	if (kind == STORE_TOTAL) {
		ms->total = b;
		return 0;
	}
	if (kind < STORE_THREAD || kind > STORE_FUNCTION)
		return -EINVAL;
	return mapping_stats__set(ms, kinds[kind], (uint32_t)db_column_int64(s, 1),
				  text_of(s, 4), text_of(s, 2), text_of(s, 3), &b);
}

static int load_mappings(struct store *st, int64_t process, struct mapping_stats *ms)
{
	struct db_stmt *s;
	int rc, err;

	if ((err = prepare_read(st, "SELECT kind, a, library, function, name, current, min, max, "
				    "anonymous, file, brk, malloc_own, mmap_calls, munmap_calls, "
				    "mremap_calls, brk_calls, madvise_calls, released_calls, "
				    "released_bytes, before_tracing_calls, before_tracing_bytes "
				    "FROM mapping_groups WHERE process = ?1", &s,
				"read the OS view")) || !s)
		return err;
	db_bind_int64(s, 1, process);
	while (!err && (rc = db_step(s)) == DB_ROW)
		err = load_map_group(s, ms);
	db_stmt__finalize(s);
	if (!err && rc != DB_DONE)
		return store_db_error(st, "read the OS view");
	return err;
}

static struct custom_account *account_named(struct custom_allocs *c, const char *name)
{
	size_t nr;
	struct custom_account *accts = custom_allocs__accounts(c, &nr);

	for (size_t i = 0; i < nr; i++) {
		if (!strcmp(accts[i].spec->name, name))
			return &accts[i];
	}
	return NULL;
}

static int load_api_group(struct db_stmt *s, struct custom_allocs *c)
{
	struct custom_account *acct = account_named(c, text_of(s, 0));
	int kind = db_column_int(s, 1);
	struct balance b = {
		.current = db_column_int64(s, 6),
		.min = db_column_int64(s, 7),
		.max = db_column_int64(s, 8),
		.requested = db_column_int64(s, 9),
	};

	if (!acct)
		return -EINVAL; /* groups of an allocator the process had not */
	for (int k = 0; k < SPEC_NR_KINDS; k++)
		b.calls[custom_allocs__slot(k)] = db_column_int64(s, 10 + k);
	switch (kind) {
	case STORE_TOTAL:
		acct->stats.total = b;
		return 0;
	case STORE_THREAD:
		return accountant__set_thread(&acct->stats, (uint32_t)db_column_int64(s, 2),
					      text_of(s, 5), &b);
	case STORE_LIBRARY:
		return accountant__set_library(&acct->stats, text_of(s, 3), &b);
	case STORE_FUNCTION:
		return accountant__set_function(&acct->stats, text_of(s, 3), text_of(s, 4), &b);
	}
	return -EINVAL;
}

static int load_allocators(struct store *st, int64_t process, struct custom_allocs **c)
{
	struct db_stmt *s;
	int rc, err;

	if ((err = prepare_read(st, "SELECT allocator, library, freed_unknown FROM allocators "
				    "WHERE process = ?1 ORDER BY position", &s,
				"read the allocators")) || !s)
		return err;
	db_bind_int64(s, 1, process);
	while (!err && (rc = db_step(s)) == DB_ROW) {
		const char *library = db_column_text(s, 1);
		struct custom_account *acct =
			custom_allocs__add_stored(c, text_of(s, 0), library);

		if (acct)
			acct->freed_unknown = db_column_int64(s, 2);
		else
			err = -ENOMEM;
	}
	db_stmt__finalize(s);
	if (err || rc != DB_DONE)
		return err ? err : store_db_error(st, "read the allocators");
	if ((err = prepare_read(st, "SELECT allocator, kind, a, library, function, name, current, "
				    "min, max, requested, malloc, calloc, realloc, free, memalign, "
				    "posix_memalign, brk FROM allocator_groups WHERE process = ?1",
				&s, "read the allocators' accounts")) || !s)
		return err;
	db_bind_int64(s, 1, process);
	while (!err && (rc = db_step(s)) == DB_ROW)
		err = load_api_group(s, *c);
	db_stmt__finalize(s);
	if (!err && rc != DB_DONE)
		return store_db_error(st, "read the allocators' accounts");
	return err;
}

static void release(struct target *t)
{
	mapping_stats__clear(&t->mappings);
	custom_allocs__free(t->custom);
	t->custom = NULL;
}

int store_os__load(struct store *st, struct run_process *p)
{
	int err;

	p->release = release;
	err = load_mappings(st, p->id, &p->t.mappings);
	if (!err)
		err = load_allocators(st, p->id, &p->t.custom);
	if (err == -EINVAL) {
		log_error("the database's OS view or allocator accounts of process %ld are "
			  "damaged: give the file heaptap collect --db wrote", (long)p->id);
		return -EIO;
	}
	return err;
}
