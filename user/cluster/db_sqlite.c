// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* db.h on an SQLite file: each call is SQLite's own. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "db.h"
#include "db_internal.h"
#include "log.h"

struct db_sqlite {
	struct db base;
	sqlite3 *h;
};

struct db_stmt {
	struct db *db;
	sqlite3_stmt *s;
};

static sqlite3 *h(struct db *db)
{
	return ((struct db_sqlite *)db)->h;
}

int db_sqlite__open(const char *path, bool read_only, struct db **out)
{
	struct db_sqlite *d = calloc(1, sizeof(*d));
	int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

	if (!d || !(d->base.name = strdup(path))) {
		free(d);
		return -ENOMEM;
	}
	d->base.kind = DB_SQLITE;
	if (sqlite3_open_v2(path, &d->h, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		log_error("cannot open the database %s: %s", path,
			  d->h ? sqlite3_errmsg(d->h) : "out of memory");
		db_sqlite__close(&d->base);
		return -EIO;
	}
	sqlite3_busy_timeout(d->h, 5000 /* ms */);
	*out = &d->base;
	return 0;
}

void db_sqlite__close(struct db *db)
{
	struct db_sqlite *d = (struct db_sqlite *)db;

	sqlite3_close(d->h);
	free(d->base.name);
	free(d);
}

const char *db_sqlite__errmsg(struct db *db)
{
	return sqlite3_errmsg(h(db));
}

int db_sqlite__exec(struct db *db, const char *sql)
{
	return sqlite3_exec(h(db), sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -EIO;
}

int64_t db_sqlite__changes(struct db *db)
{
	return sqlite3_changes(h(db));
}

bool db_sqlite__in_transaction(struct db *db)
{
	return !sqlite3_get_autocommit(h(db));
}

struct db_stmt *db_sqlite__prepare(struct db *db, const char *sql, unsigned flags)
{
	struct db_stmt *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->db = db;
	if (sqlite3_prepare_v3(h(db), sql, -1, flags & DB_PERSISTENT ? SQLITE_PREPARE_PERSISTENT : 0,
			       &s->s, NULL) != SQLITE_OK) {
		free(s);
		return NULL;
	}
	return s;
}

void db_sqlite__finalize(struct db_stmt *s)
{
	sqlite3_finalize(s->s);
	free(s);
}

void db_sqlite__reset(struct db_stmt *s)
{
	sqlite3_reset(s->s);
}

void db_sqlite__clear_bindings(struct db_stmt *s)
{
	sqlite3_clear_bindings(s->s);
}

void db_sqlite__bind_int64(struct db_stmt *s, int i, int64_t v)
{
	sqlite3_bind_int64(s->s, i, v);
}

void db_sqlite__bind_double(struct db_stmt *s, int i, double v)
{
	sqlite3_bind_double(s->s, i, v);
}

void db_sqlite__bind_text(struct db_stmt *s, int i, const char *text)
{
	if (text)
		sqlite3_bind_text(s->s, i, text, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s->s, i);
}

int db_sqlite__step(struct db_stmt *s)
{
	int rc = sqlite3_step(s->s);

	return rc == SQLITE_ROW ? DB_ROW : rc == SQLITE_DONE ? DB_DONE : DB_ERROR;
}

bool db_sqlite__column_null(struct db_stmt *s, int i)
{
	return sqlite3_column_type(s->s, i) == SQLITE_NULL;
}

int64_t db_sqlite__column_int64(struct db_stmt *s, int i)
{
	return sqlite3_column_int64(s->s, i);
}

double db_sqlite__column_double(struct db_stmt *s, int i)
{
	return sqlite3_column_double(s->s, i);
}

const char *db_sqlite__column_text(struct db_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s->s, i);
}

size_t db_sqlite__column_bytes(struct db_stmt *s, int i)
{
	return (size_t)sqlite3_column_bytes(s->s, i);
}
