// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A store's runs into another: row by row through db.h, so any backend to any other. Ids
 * are the target's own: agents are matched by uid, names by text, runs by key; a run the
 * target has already is left as it is there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "log.h"
#include "store_sql.h"
#include "store_migrate.h"
#include "store_read.h"
#include "store_schema.h"

/* An id of from and the one it has in to. */
struct id_map {
	int64_t from, to;
	UT_hash_handle hh;
};

struct migration {
	struct db *src, *dst;
	struct id_map *agents, *names;
	const char *from, *to;
};

static int db_err(struct db *db, const char *what)
{
	log_error("database %s: %s: %s", db__name(db), what, db__errmsg(db));
	return -EIO;
}

static void forget(struct id_map **map)
{
	struct id_map *m, *t;

	HASH_ITER(hh, *map, m, t) {
		HASH_DEL(*map, m);
		free(m);
	}
}

static int remember(struct id_map **map, int64_t from, int64_t to)
{
	struct id_map *m = malloc(sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->from = from;
	m->to = to;
	HASH_ADD(hh, *map, from, sizeof(m->from), m);
	return 0;
}

/* Column i of s bound as parameter j of d, its type kept ('i', 'd' or 't'). */
static void copy_value(struct db_stmt *s, int i, struct db_stmt *d, int j, char type)
{
	if (db_column_null(s, i))
		db_bind_null(d, j);
	else if (type == 'i')
		db_bind_int64(d, j, db_column_int64(s, i));
	else if (type == 'd')
		db_bind_double(d, j, db_column_double(s, i));
	else
		db_bind_text(d, j, db_column_text(s, i));
}

/* One integer of a query with one text parameter; 0 when no row. */
static int64_t id_by_text(struct db *db, const char *sql, const char *text)
{
	struct db_stmt *s = db__prepare(db, sql, 0);
	int64_t id = 0;

	if (s) {
		db_bind_text(s, 1, text);
		if (db_step(s) == DB_ROW)
			id = db_column_int64(s, 0);
	}
	db_stmt__finalize(s);
	return id;
}

/* The id in to of a text in the names table, added if new. 0 on error. */
static int64_t name_in_to(struct migration *m, int64_t from)
{
	struct id_map *known;
	struct db_stmt *s, *add;
	int64_t id = 0;

	HASH_FIND(hh, m->names, &from, sizeof(from), known);
	if (known)
		return known->to;
	s = db__prepare(m->src, "SELECT text FROM names WHERE id = ?1", 0);
	add = db__prepare(m->dst, "INSERT INTO names (text) VALUES (?1) ON CONFLICT (text) DO "
				  "NOTHING", 0);
	if (s && add) {
		db_bind_int64(s, 1, from);
		if (db_step(s) == DB_ROW) {
			db_bind_text(add, 1, db_column_text(s, 0));
			if (db_step(add) == DB_DONE)
				id = id_by_text(m->dst, "SELECT id FROM names WHERE text = ?1",
						db_column_text(s, 0));
		}
	}
	db_stmt__finalize(s);
	db_stmt__finalize(add);
	if (!id || remember(&m->names, from, id))
		return 0;
	return id;
}

#define AGENT_COLUMNS "uid, host, command, pid, attribution, first_seen, last_seen, last_seq, " \
		      "state, dropped_messages"

/* The agent's id in to (matched by uid, added if new). 0 on error. */
static int64_t agent_in_to(struct migration *m, int64_t from)
{
	static const char types[] = "tttitdditi";
	struct id_map *known;
	struct db_stmt *s, *add;
	int64_t id = 0;

	HASH_FIND(hh, m->agents, &from, sizeof(from), known);
	if (known)
		return known->to;
	s = db__prepare(m->src, "SELECT " AGENT_COLUMNS " FROM agents WHERE id = ?1", 0);
	add = db__prepare(m->dst, "INSERT INTO agents (" AGENT_COLUMNS ") VALUES (?1, ?2, ?3, "
				  "?4, ?5, ?6, ?7, ?8, ?9, ?10) ON CONFLICT (uid) DO NOTHING", 0);
	if (s && add) {
		db_bind_int64(s, 1, from);
		if (db_step(s) == DB_ROW) {
			for (int i = 0; types[i]; i++)
				copy_value(s, i, add, i + 1, types[i]);
			if (db_step(add) == DB_DONE)
				id = id_by_text(m->dst, "SELECT id FROM agents WHERE uid = ?1",
						db_column_text(s, 0));
		}
	}
	db_stmt__finalize(s);
	db_stmt__finalize(add);
	if (!id || remember(&m->agents, from, id))
		return 0;
	return id;
}

/*
 * The rows of table of process from, as process to: columns (the first is process),
 * their types. A table the source has not (an older schema) copies nothing. 0 or -EIO.
 */
static int copy_rows(struct migration *m, const char *table, const char *columns,
		     const char *types, int64_t from, int64_t to)
{
	char sql[1024], values[512] = "?1";
	struct db_stmt *s, *d = NULL;
	int n = (int)strlen(types), rc, err = 0;

	snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE process = ?1", columns, table);
	if (!(s = db__prepare(m->src, sql, 0)))
		return strstr(db__errmsg(m->src), "no such") ? 0 : db_err(m->src, sql);
	for (int i = 2; i <= n; i++)
		snprintf(values + strlen(values), sizeof(values) - strlen(values), ", ?%d", i);
	snprintf(sql, sizeof(sql), "INSERT INTO %s (%s) VALUES (%s)", table, columns, values);
	if (!(d = db__prepare(m->dst, sql, DB_PERSISTENT))) {
		db_stmt__finalize(s);
		return db_err(m->dst, sql);
	}
	db_bind_int64(s, 1, from);
	while (!err && (rc = db_step(s)) == DB_ROW) {
		db_reset(d);
		db_clear_bindings(d);
		db_bind_int64(d, 1, to);
		for (int i = 1; i < n; i++)
			copy_value(s, i, d, i + 1, types[i]);
		if (db_step(d) != DB_DONE)
			err = db_err(m->dst, table);
	}
	if (!err && rc != DB_DONE)
		err = strstr(db__errmsg(m->src), "no such") ? 0 : db_err(m->src, table);
	db_stmt__finalize(s);
	db_stmt__finalize(d);
	return err;
}

/* Does the source's schema have what sql selects (a schema before 6: no OOM columns)? */
static bool source_has(struct migration *m, const char *sql)
{
	struct db_stmt *s = db__prepare(m->src, sql, 0);

	db_stmt__finalize(s);
	return s != NULL;
}

/* The groups of process from as to's, names in to's ids. 0 or -EIO. */
static int copy_groups(struct migration *m, int64_t from, int64_t to)
{
	struct db_stmt *s = db__prepare(m->src, "SELECT kind, a, b, name, current, min, max, "
						"requested, " STORE_CALL_COLUMNS " FROM groups "
						"WHERE process = ?1", 0);
	struct db_stmt *d = db__prepare(m->dst, "INSERT INTO groups (process, kind, a, b, name, "
						"current, min, max, requested, " STORE_CALL_COLUMNS
						") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
						"?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
					DB_PERSISTENT);
	int rc = DB_ERROR, err = 0;

	if (!s || !d) {
		err = db_err(s ? m->dst : m->src, "copy groups");
		goto cleanup;
	}
	db_bind_int64(s, 1, from);
	while (!err && (rc = db_step(s)) == DB_ROW) {
		int kind = db_column_int(s, 0);
		int64_t a = db_column_int64(s, 1), b = db_column_int64(s, 2);

		if (kind == STORE_LIBRARY || kind == STORE_FUNCTION)
			a = name_in_to(m, a);
		if (kind == STORE_FUNCTION)
			b = name_in_to(m, b);
		if (!a && kind >= STORE_LIBRARY) {
			err = db_err(m->dst, "copy a name");
			break;
		}
		db_reset(d);
		db_clear_bindings(d);
		db_bind_int64(d, 1, to);
		db_bind_int(d, 2, kind);
		db_bind_int64(d, 3, a);
		db_bind_int64(d, 4, b);
		copy_value(s, 3, d, 5, 't');
		for (int i = 4; i < 8 + HT_NR_FUNCS; i++)
			copy_value(s, i, d, i + 2, 'i');
		if (db_step(d) != DB_DONE)
			err = db_err(m->dst, "copy a group");
	}
	if (!err && rc != DB_DONE)
		err = db_err(m->src, "read groups");
cleanup:
	db_stmt__finalize(s);
	db_stmt__finalize(d);
	return err;
}

#define PROCESS_COLUMNS_4 "key, host, pid, rank, world_size, local_rank, job, command, " \
	"allocator, usable_known, first_seen, last_seen, state, exit_status, signal, "      \
	"lost_events, incomplete_stacks, holds_skipped, unsupported_unwinds"
#define PROCESS_COLUMNS_5 PROCESS_COLUMNS_4 ", uid, user_name"
#define PROCESS_COLUMNS PROCESS_COLUMNS_5 ", sample_bytes"
#define PROCESS_TYPES "itiiiitttiddtiiiiiiiti"
#define NR_PROCESS_COLUMNS 22

static int copy_process(struct migration *m, struct db_stmt *s, int64_t run)
{
	int64_t from = db_column_int64(s, 0), agent = agent_in_to(m, db_column_int64(s, 1)), to = 0;
	struct db_stmt *d = db__prepare(m->dst, "INSERT INTO processes (run, agent, "
						PROCESS_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
						"?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
						"?18, ?19, ?20, ?21, ?22, ?23, ?24) RETURNING id",
					0);
	int err;

	if (!agent || !d) {
		db_stmt__finalize(d);
		return db_err(m->dst, "copy an agent");
	}
	db_bind_int64(d, 1, run);
	db_bind_int64(d, 2, agent);
	for (int i = 0; i < NR_PROCESS_COLUMNS; i++)
		copy_value(s, i + 2, d, i + 3, PROCESS_TYPES[i]);
	if (db_step(d) == DB_ROW)
		to = db_column_int64(d, 0);
	db_stmt__finalize(d);
	if (!to)
		return db_err(m->dst, "copy a process");
	err = copy_groups(m, from, to) ||
	      copy_rows(m, "samples", "process, t, current, max", "idii", from, to) ||
	      (source_has(m, "SELECT oom_time FROM owner LIMIT 0") ?
		       copy_rows(m, "owner", "process, blocks, bytes, peak_blocks, peak_bytes, "
				 "freed_calls, freed_bytes, freed_bytes_known, oom_time, "
				 "oom_blocks, oom_bytes, oom_cgroup", "iiiiiiiidiit", from, to) :
		       copy_rows(m, "owner", "process, blocks, bytes, peak_blocks, peak_bytes, "
				 "freed_calls, freed_bytes, freed_bytes_known", "iiiiiiii", from,
				 to)) ||
	      copy_rows(m, "owner_sites", "process, kind, position, frames, blocks, bytes, "
			"requested, likely_leak, growth_bytes_per_second", "iiitiiiid", from, to) ||
	      copy_rows(m, "mapping_groups", "process, kind, a, library, function, name, current, "
			"min, max, anonymous, file, brk, malloc_own, mmap_calls, munmap_calls, "
			"mremap_calls, brk_calls, madvise_calls, released_calls, released_bytes, "
			"before_tracing_calls, before_tracing_bytes", "iiitttiiiiiiiiiiiiiiii",
			from, to) ||
	      copy_rows(m, "mapping_rss", "process, rss, rss_max", "iii", from, to) ||
	      copy_rows(m, "allocators", "process, allocator, position, library, freed_unknown",
			"itiii", from, to) ||
	      copy_rows(m, "allocator_groups", "process, allocator, kind, a, library, function, "
			"name, current, min, max, requested, malloc, calloc, realloc, free, "
			"memalign, posix_memalign, brk", "itiittttiiiiiiiiii", from, to);
	return err ? -EIO : 0;
}

/* Run id of from (key key) into to. 1 copied, 0 there already, -EIO. */
static int copy_run(struct migration *m, struct db_stmt *r, int64_t *to)
{
	const char *key = db_column_text(r, 1);
	struct db_stmt *add, *ps;
	int rc, err = 0;

	if ((*to = id_by_text(m->dst, "SELECT id FROM runs WHERE key = ?1", key)))
		return 0;
	add = db__prepare(m->dst, "INSERT INTO runs (key, job, command, started, attribution) "
				  "VALUES (?1, ?2, ?3, ?4, ?5)", 0);
	if (!add)
		return db_err(m->dst, "copy a run");
	copy_value(r, 1, add, 1, 't');
	copy_value(r, 2, add, 2, 't');
	copy_value(r, 3, add, 3, 't');
	copy_value(r, 4, add, 4, 'd');
	copy_value(r, 5, add, 5, 't');
	rc = db_step(add);
	db_stmt__finalize(add);
	if (rc != DB_DONE || !(*to = id_by_text(m->dst, "SELECT id FROM runs WHERE key = ?1", key)))
		return db_err(m->dst, "copy a run");
	ps = db__prepare(m->src, "SELECT id, agent, " PROCESS_COLUMNS " FROM processes WHERE "
				 "run = ?1 ORDER BY id", 0);
	/* A file before schema 6: no --sample-bytes (exact); before 5: no user either. */
	if (!ps && strstr(db__errmsg(m->src), "no such column"))
		ps = db__prepare(m->src, "SELECT id, agent, " PROCESS_COLUMNS_5 ", NULL FROM "
					 "processes WHERE run = ?1 ORDER BY id", 0);
	if (!ps && strstr(db__errmsg(m->src), "no such column"))
		ps = db__prepare(m->src, "SELECT id, agent, " PROCESS_COLUMNS_4 ", NULL, NULL, NULL "
					 "FROM processes WHERE run = ?1 ORDER BY id", 0);
	if (!ps)
		return db_err(m->src, "read processes");
	db_bind_int64(ps, 1, db_column_int64(r, 0));
	while (!err && (rc = db_step(ps)) == DB_ROW)
		err = copy_process(m, ps, *to);
	if (!err && rc != DB_DONE)
		err = db_err(m->src, "read processes");
	db_stmt__finalize(ps);
	return err ? -EIO : 1;
}

int store__migrate(const char *from, const char *to, FILE *out)
{
	struct store *src = NULL, *dst = NULL;
	struct migration m = { .from = from, .to = to };
	struct db_stmt *r = NULL;
	int copied = 0, kept = 0, rc, err;

	if ((err = store__open(from, true, &src)) || (err = store__open(to, false, &dst)))
		goto cleanup;
	m.src = store__db(src);
	m.dst = store__db(dst);
	/* All or nothing: a copy stopped halfway leaves to as it was. */
	if ((err = store__begin(dst)))
		goto cleanup;
	r = db__prepare(m.src, "SELECT id, key, job, command, started, attribution FROM runs "
			       "ORDER BY id", 0);
	if (!r) {
		err = db_err(m.src, "read runs");
		goto rollback;
	}
	while ((rc = db_step(r)) == DB_ROW) {
		int64_t id;
		int c = copy_run(&m, r, &id);

		if (c < 0) {
			err = c;
			goto rollback;
		}
		fprintf(out, "run %" PRId64 " (%s): %s run %" PRId64 "\n", db_column_int64(r, 0),
			db_column_text(r, 1), c ? "copied as" : "there already as", id);
		c ? copied++ : kept++;
	}
	if (rc != DB_DONE) {
		err = db_err(m.src, "read runs");
		goto rollback;
	}
	db_stmt__finalize(r);
	r = NULL;
	if ((err = store__commit(dst)))
		goto cleanup;
	fprintf(out, "%d runs copied, %d there already\n", copied, kept);
	goto cleanup;
rollback:
	store__rollback(dst);
cleanup:
	db_stmt__finalize(r);
	forget(&m.agents);
	forget(&m.names);
	store__close(dst);
	store__close(src);
	return err;
}
