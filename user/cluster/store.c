// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The store opened and closed, its transactions, agents and lost agents (see store_batch.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "store_internal.h"

int store__open(const char *path, bool read_only, struct store **out)
{
	struct store *st = calloc(1, sizeof(*st));
	bool pg = db__is_postgresql(path);
	int err;

	if (!st)
		return -ENOMEM;
	if ((err = db__open(path, read_only, &st->db)))
		goto fail;
	err = -EIO;
	if (pg ? store_pg__setup(st->db, read_only) : store_sqlite__setup(st->db, path, read_only))
		goto fail;
	if (!read_only && store_sql__prepare(st, pg))
		goto fail;
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
	store_sql__finalize(st);
	free(st->samples);
	free(st);
}

int store__begin(struct store *st)
{
	const char *begin = db__kind(st->db) == DB_SQLITE ? "BEGIN IMMEDIATE" : "BEGIN";

	/* A server restarted since: connected again (db_pg.c), the statements prepared again. */
	return db__exec(st->db, begin) ? store_db_error(st, "begin") : 0;
}

int store__commit(struct store *st)
{
	if (!store__flush(st) && !db__exec(st->db, "COMMIT"))
		return 0;
	store_db_error(st, "commit");
	store__rollback(st);
	return -EIO;
}

void store__rollback(struct store *st)
{
	db__exec(st->db, "ROLLBACK");
	/* Ids handed out inside the transaction are gone with it. */
	store__drop_pending(st);
	forget_cache(st);
}

size_t store__pending_bytes(const struct store *st)
{
	return pending__bytes(&st->pending) + st->samples_cap * sizeof(*st->samples);
}

/* The agent's id and last batch stored: 1 found, 0 not, -EIO. */
static int agent_find(struct store *st, const char *hex, struct store_agent *out)
{
	struct db_stmt *s = store_stmt(st, AGENT_FIND);
	int rc;

	store_bind_text(s, 1, hex);
	rc = db_step(s);
	if (rc == DB_ROW) {
		out->id = db_column_int64(s, 0);
		out->last_seq = db_column_int64(s, 1);
	}
	db_reset(s);
	return rc == DB_ROW ? 1 : rc == DB_DONE ? 0 : store_db_error(st, "find agent");
}

int store__agent_hello(struct store *st, uint64_t uid, const char *host, const char *command,
		       int pid, const char *attribution, double now, struct store_agent *out)
{
	char hex[17];
	struct db_stmt *s;
	int rc;

	snprintf(hex, sizeof(hex), "%016" PRIx64, uid);
	rc = agent_find(st, hex, out);
	if (rc < 0)
		return -EIO;
	if (rc) {
		s = store_stmt(st, AGENT_HELLO);
		db_bind_int64(s, 1, out->id);
		db_bind_double(s, 2, now);
		return store_run(st, s, "agent hello");
	}
	s = store_stmt(st, AGENT_ADD);
	store_bind_text(s, 1, hex);
	store_bind_text(s, 2, host);
	store_bind_text(s, 3, command);
	db_bind_int(s, 4, pid);
	store_bind_text(s, 5, attribution);
	db_bind_double(s, 6, now);
	if (store_run(st, s, "add agent"))
		return -EIO;
	rc = agent_find(st, hex, out);
	if (rc <= 0)
		return rc ? -EIO : store_db_error(st, "add agent");
	return 0;
}

int store__agent_gone(struct store *st, int64_t agent, const char *state, double now)
{
	struct db_stmt *s = store_stmt(st, AGENT_GONE);

	db_bind_int64(s, 1, agent);
	store_bind_text(s, 2, state);
	db_bind_double(s, 3, now);
	return store_run(st, s, "agent gone");
}

/* Tell on_lost of each running process of a lost agent, before it is marked. */
static void list_lost(struct store *st, store_on_lost on_lost, void *ctx)
{
	struct db_stmt *s = store_stmt(st, LOST_LISTED);

	while (db_step(s) == DB_ROW) {
		struct store_who who = {
			.job = db_column_text(s, 0),
			.host = db_column_text(s, 1),
			.rank = db_column_null(s, 2) ? -1 :
									 db_column_int(s, 2),
			.pid = db_column_int(s, 3),
		};

		on_lost(ctx, &who);
	}
	db_reset(s);
}

int store__mark_lost(struct store *st, double lost_before, double connected_as_of,
		     store_on_lost on_lost, void *ctx)
{
	bool own = !db__in_transaction(st->db); /* no transaction under way */
	struct db_stmt *s;
	int changed;

	if (own && store__begin(st))
		return -EIO;
	if (connected_as_of > 0) {
		s = store_stmt(st, STALE_AGENTS);
		db_bind_double(s, 1, connected_as_of);
		if (store_run(st, s, "stale agents"))
			goto fail;
	}
	s = store_stmt(st, LOST_AGENTS);
	db_bind_double(s, 1, lost_before);
	if (store_run(st, s, "lost agents"))
		goto fail;
	changed = (int)db__changes(st->db);
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
