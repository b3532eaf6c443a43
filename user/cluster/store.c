// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The collector's writes: agents, their batches, lost agents. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "heaptap_types.h"
#include "log.h"
#include "store_internal.h"
#include "store_schema.h"

static const char *const sql[NR_STMTS] = {
	[AGENT_FIND] = "SELECT id, last_seq FROM agents WHERE uid = ?1",
	[AGENT_FIND_ID] = "SELECT last_seq FROM agents WHERE id = ?1",
	[AGENT_ADD] = "INSERT INTO agents (uid, host, command, pid, attribution, first_seen, "
		      "last_seen, state) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, 'connected')",
	[AGENT_HELLO] = "UPDATE agents SET state = 'connected', last_seen = ?2 WHERE id = ?1",
	[AGENT_GONE] = "UPDATE agents SET state = ?2, last_seen = ?3 WHERE id = ?1",
	[AGENT_SEQ] = "UPDATE agents SET last_seq = ?2, last_seen = ?3, dropped_messages = ?4 "
		      "WHERE id = ?1",
	[LOST_AGENTS] = "UPDATE agents SET state = 'lost' WHERE state = 'disconnected' AND "
			"last_seen < ?1",
	[LOST_LISTED] = "SELECT job, host, rank, pid FROM processes WHERE state = 'running' "
			"AND agent IN (SELECT id FROM agents WHERE state = 'lost')",
	[LOST_PROCESSES] = "UPDATE processes SET state = 'agent lost' WHERE state = 'running' "
			   "AND agent IN (SELECT id FROM agents WHERE state = 'lost')",
	/* Connected when the collector stopped: disconnected from its start on. */
	[STALE_AGENTS] = "UPDATE agents SET state = 'disconnected', last_seen = ?1 WHERE "
			 "state = 'connected'",
	[AGENT_INFO] = "SELECT command, attribution, uid FROM agents WHERE id = ?1",
	[RUN_FIND] = "SELECT id FROM runs WHERE key = ?1",
	[RUN_ADD] = "INSERT INTO runs (key, job, command, started, attribution) "
		    "VALUES (?1, ?2, ?3, ?4, ?5)",
	[PROCESS_FIND] = "SELECT id, job, host, rank, pid FROM processes WHERE agent = ?1 AND "
			 "key = ?2",
	[PROCESS_ADD] = "INSERT INTO processes (run, agent, key, host, pid, rank, world_size, "
			"local_rank, job, command, allocator, usable_known, first_seen, last_seen) "
			"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13)",
	[PROCESS_STATUS] = "UPDATE processes SET last_seen = ?2, state = ?3, exit_status = ?4, "
			   "signal = ?5, lost_events = ?6, incomplete_stacks = ?7, "
			   "holds_skipped = ?8, unsupported_unwinds = ?9 WHERE id = ?1",
	[NAME_FIND] = "SELECT id FROM names WHERE text = ?1",
	[NAME_ADD] = "INSERT INTO names (text) VALUES (?1)",
	/* An update in place where the group exists (most batches): no delete and insert. */
	[GROUP_PUT] = "INSERT INTO groups (process, kind, a, b, name, current, min, "
		      "max, requested, " STORE_CALL_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
		      "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19) "
		      "ON CONFLICT (process, kind, a, b) DO UPDATE SET name = excluded.name, "
		      "current = ?6, min = ?7, max = ?8, requested = ?9, malloc = ?10, "
		      "calloc = ?11, realloc = ?12, reallocarray = ?13, free = ?14, "
		      "memalign = ?15, posix_memalign = ?16, aligned_alloc = ?17, valloc = ?18, "
		      "pvalloc = ?19",
	[SAMPLE_ADD] = "INSERT INTO samples (process, t, current, max) VALUES (?1, ?2, ?3, ?4)",
	[OWNER_PUT] = "INSERT OR REPLACE INTO owner (process, blocks, bytes, peak_blocks, "
		      "peak_bytes, freed_calls, freed_bytes, freed_bytes_known) VALUES (?1, ?2, "
		      "?3, ?4, ?5, ?6, ?7, ?8)",
	[OWNER_SITES_CLEAR] = "DELETE FROM owner_sites WHERE process = ?1",
	[OWNER_SITE_ADD] = "INSERT INTO owner_sites (process, kind, position, frames, blocks, "
			   "bytes, requested, likely_leak, growth_bytes_per_second) VALUES (?1, "
			   "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
};

sqlite3 *store__db(struct store *st)
{
	return st->db;
}

int store_db_error(struct store *st, const char *what)
{
	log_error("database: %s: %s", what, sqlite3_errmsg(st->db));
	return -EIO;
}

#define TEXT_OF(n) #n
#define SCHEMA_VERSION_TEXT_OF(n) TEXT_OF(n)
#define SCHEMA_VERSION_TEXT SCHEMA_VERSION_TEXT_OF(STORE_SCHEMA_VERSION)

/* A file of schema 2 gains schema 3's columns; 0, or -EIO after one logged line. */
static int add_owner_columns(struct store *st, const char *path)
{
	sqlite3_stmt *s;
	char *msg = NULL;
	int has = -1;

	if (sqlite3_prepare_v2(st->db, "SELECT count(*) FROM pragma_table_info('owner') WHERE "
				       "name = 'freed_calls'", -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		has = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	if (has < 0)
		return store_db_error(st, "read the owner table's columns");
	/* In one transaction: a collector stopped halfway leaves the file as it was. */
	if (has || sqlite3_exec(st->db, "BEGIN IMMEDIATE;" STORE_OWNER_FREED_COLUMNS "COMMIT;",
				NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	log_error("cannot bring %s to schema 3: %s", path, msg ? msg : "?");
	sqlite3_free(msg);
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -EIO;
}

int store__open(const char *path, bool read_only, struct store **out)
{
	struct store *st = calloc(1, sizeof(*st));
	int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	char *msg = NULL;
	int err = -EIO;

	if (!st)
		return -ENOMEM;
	if (sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		log_error("cannot open the database %s: %s", path,
			  st->db ? sqlite3_errmsg(st->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(st->db, 5000 /* ms */);
	/* A file of a newer schema is refused before anything changes it. */
	if (!read_only && store__user_version(st->db) > STORE_SCHEMA_VERSION) {
		store__check_schema(st->db, path);
		goto fail;
	}
	/*
	 * WAL: a commit is one append, readers (heaptap report) never block the collector.
	 * synchronous=FULL: what was acknowledged survives even the machine's crash. Every
	 * rank's groups are updated each second or so: they stay in a large page cache, and
	 * a hot page goes to the database once per 64 MiB of log rather than per 4 MiB.
	 */
	if (!read_only &&
	    sqlite3_exec(st->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; "
				 "PRAGMA cache_size=-262144; PRAGMA wal_autocheckpoint=16384; "
				 "PRAGMA foreign_keys=ON;" STORE_SCHEMA, NULL, NULL, &msg) != SQLITE_OK) {
		log_error("cannot use %s as heaptap's database: %s", path, msg ? msg : "?");
		sqlite3_free(msg);
		goto fail;
	}
	if (!read_only && (add_owner_columns(st, path) ||
			   sqlite3_exec(st->db, "PRAGMA user_version=" SCHEMA_VERSION_TEXT ";", NULL,
					NULL, NULL) != SQLITE_OK))
		goto fail;
	if (store__check_schema(st->db, path))
		goto fail;
	for (int i = 0; i < NR_STMTS && !read_only; i++) {
		if (sqlite3_prepare_v3(st->db, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st->stmts[i],
				       NULL) != SQLITE_OK) {
			store_db_error(st, sql[i]);
			goto fail;
		}
	}
	*out = st;
	return 0;
fail:
	store__close(st);
	return err;
}

static void forget_cache(struct store *st)
{
	struct name_id *n, *nt;
	struct known_process *p, *pt;

	HASH_ITER(hh, st->names, n, nt) {
		HASH_DEL(st->names, n);
		free(n);
	}
	HASH_ITER(hh, st->processes, p, pt) {
		HASH_DEL(st->processes, p);
		free(p->job);
		free(p->host);
		free(p);
	}
}

void store__close(struct store *st)
{
	if (!st)
		return;
	forget_cache(st);
	pending__free(&st->pending);
	free(st->puts);
	for (int i = 0; i < NR_STMTS; i++)
		sqlite3_finalize(st->stmts[i]);
	sqlite3_close(st->db);
	free(st);
}

sqlite3_stmt *store_stmt(struct store *st, enum stmt which)
{
	sqlite3_stmt *s = st->stmts[which];

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return s;
}

int store_run(struct store *st, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : store_db_error(st, what);
}

void store_bind_text(sqlite3_stmt *s, int i, const char *text)
{
	if (text)
		sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT);
}

int store__begin(struct store *st)
{
	return sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK
		       ? 0 : store_db_error(st, "begin");
}

int store__commit(struct store *st)
{
	if (!store__flush(st) && sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	store_db_error(st, "commit");
	store__rollback(st);
	return -EIO;
}

void store__rollback(struct store *st)
{
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	/* Ids handed out inside the transaction are gone with it. */
	store__drop_pending(st);
	forget_cache(st);
}

size_t store__pending_bytes(const struct store *st)
{
	return pending__bytes(&st->pending);
}

int store__agent_hello(struct store *st, uint64_t uid, const char *host, const char *command,
		       int pid, const char *attribution, double now, struct store_agent *out)
{
	char hex[17];
	sqlite3_stmt *s = store_stmt(st, AGENT_FIND);
	int rc;

	snprintf(hex, sizeof(hex), "%016" PRIx64, uid);
	store_bind_text(s, 1, hex);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		out->id = sqlite3_column_int64(s, 0);
		out->last_seq = sqlite3_column_int64(s, 1);
		sqlite3_reset(s);
		s = store_stmt(st, AGENT_HELLO);
		sqlite3_bind_int64(s, 1, out->id);
		sqlite3_bind_double(s, 2, now);
		return store_run(st, s, "agent hello");
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return store_db_error(st, "find agent");
	s = store_stmt(st, AGENT_ADD);
	store_bind_text(s, 1, hex);
	store_bind_text(s, 2, host);
	store_bind_text(s, 3, command);
	sqlite3_bind_int(s, 4, pid);
	store_bind_text(s, 5, attribution);
	sqlite3_bind_double(s, 6, now);
	if (store_run(st, s, "add agent"))
		return -EIO;
	out->id = sqlite3_last_insert_rowid(st->db);
	out->last_seq = 0;
	return 0;
}

int store__agent_gone(struct store *st, int64_t agent, const char *state, double now)
{
	sqlite3_stmt *s = store_stmt(st, AGENT_GONE);

	sqlite3_bind_int64(s, 1, agent);
	store_bind_text(s, 2, state);
	sqlite3_bind_double(s, 3, now);
	return store_run(st, s, "agent gone");
}

/* Tell on_lost of each running process of a lost agent, before it is marked. */
static void list_lost(struct store *st, store_on_lost on_lost, void *ctx)
{
	sqlite3_stmt *s = store_stmt(st, LOST_LISTED);

	while (sqlite3_step(s) == SQLITE_ROW) {
		struct store_who who = {
			.job = (const char *)sqlite3_column_text(s, 0),
			.host = (const char *)sqlite3_column_text(s, 1),
			.rank = sqlite3_column_type(s, 2) == SQLITE_NULL ? -1 :
									 sqlite3_column_int(s, 2),
			.pid = sqlite3_column_int(s, 3),
		};

		on_lost(ctx, &who);
	}
	sqlite3_reset(s);
}

int store__mark_lost(struct store *st, double lost_before, double connected_as_of,
		     store_on_lost on_lost, void *ctx)
{
	bool own = sqlite3_get_autocommit(st->db); /* no transaction under way */
	sqlite3_stmt *s;
	int changed;

	if (own && store__begin(st))
		return -EIO;
	if (connected_as_of > 0) {
		s = store_stmt(st, STALE_AGENTS);
		sqlite3_bind_double(s, 1, connected_as_of);
		if (store_run(st, s, "stale agents"))
			goto fail;
	}
	s = store_stmt(st, LOST_AGENTS);
	sqlite3_bind_double(s, 1, lost_before);
	if (store_run(st, s, "lost agents"))
		goto fail;
	changed = sqlite3_changes(st->db);
	/* Their processes' pending statuses first, or the commit would undo the marks. */
	if (changed && store__flush(st))
		goto fail;
	if (changed && on_lost)
		list_lost(st, on_lost, ctx);
	if (changed && store_run(st, store_stmt(st, LOST_PROCESSES), "lost processes"))
		goto fail;
	if (own)
		return store__commit(st) ? -EIO : changed;
	return changed;
fail:
	/* Inside the caller's transaction: its commit fails too, or it rolls back. */
	if (own)
		store__rollback(st);
	return -EIO;
}
