// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* db.h: each call to the backend of its database. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "db.h"
#include "db_internal.h"

#define DB_OF(s) (*(struct db **)(s))
#define CALL(db, fn, ...)                                                                     \
	((db)->kind == DB_POSTGRESQL ? db_pg__##fn(__VA_ARGS__) : db_sqlite__##fn(__VA_ARGS__))

bool db__is_postgresql(const char *target)
{
	const char *p = target;

	if (!strncmp(target, "postgresql://", 13) || !strncmp(target, "postgres://", 11))
		return true;
	/* libpq's key=value list: "host=... dbname=...", a keyword first. */
	while (*p == ' ')
		p++;
	if (!islower((unsigned char)*p))
		return false;
	while (islower((unsigned char)*p) || *p == '_')
		p++;
	while (*p == ' ')
		p++;
	return *p == '=';
}

int db__open(const char *target, bool read_only, struct db **out)
{
	return db__is_postgresql(target) ? db_pg__open(target, read_only, out)
					 : db_sqlite__open(target, read_only, out);
}

void db__close(struct db *db)
{
	if (db)
		CALL(db, close, db);
}

enum db_kind db__kind(const struct db *db)
{
	return db->kind;
}

const char *db__name(const struct db *db)
{
	return db->name;
}

const char *db__errmsg(struct db *db)
{
	return CALL(db, errmsg, db);
}

int db__exec(struct db *db, const char *sql)
{
	return CALL(db, exec, db, sql);
}

int64_t db__changes(struct db *db)
{
	return CALL(db, changes, db);
}

bool db__in_transaction(struct db *db)
{
	return CALL(db, in_transaction, db);
}

int db__ensure(struct db *db)
{
	return db->kind == DB_POSTGRESQL ? db_pg__ensure(db) : 0;
}

struct db_stmt *db__prepare(struct db *db, const char *sql, unsigned flags)
{
	return CALL(db, prepare, db, sql, flags);
}

void db_stmt__finalize(struct db_stmt *s)
{
	if (s)
		CALL(DB_OF(s), finalize, s);
}

void db_reset(struct db_stmt *s)
{
	CALL(DB_OF(s), reset, s);
}

void db_clear_bindings(struct db_stmt *s)
{
	CALL(DB_OF(s), clear_bindings, s);
}

void db_bind_int64(struct db_stmt *s, int i, int64_t v)
{
	CALL(DB_OF(s), bind_int64, s, i, v);
}

void db_bind_int(struct db_stmt *s, int i, int v)
{
	CALL(DB_OF(s), bind_int64, s, i, v);
}

void db_bind_double(struct db_stmt *s, int i, double v)
{
	CALL(DB_OF(s), bind_double, s, i, v);
}

void db_bind_text(struct db_stmt *s, int i, const char *text)
{
	CALL(DB_OF(s), bind_text, s, i, text);
}

void db_bind_null(struct db_stmt *s, int i)
{
	CALL(DB_OF(s), bind_text, s, i, NULL);
}

int db_step(struct db_stmt *s)
{
	return CALL(DB_OF(s), step, s);
}

bool db_column_null(struct db_stmt *s, int i)
{
	return CALL(DB_OF(s), column_null, s, i);
}

int64_t db_column_int64(struct db_stmt *s, int i)
{
	return CALL(DB_OF(s), column_int64, s, i);
}

int db_column_int(struct db_stmt *s, int i)
{
	return (int)CALL(DB_OF(s), column_int64, s, i);
}

double db_column_double(struct db_stmt *s, int i)
{
	return CALL(DB_OF(s), column_double, s, i);
}

const char *db_column_text(struct db_stmt *s, int i)
{
	return CALL(DB_OF(s), column_text, s, i);
}

size_t db_column_bytes(struct db_stmt *s, int i)
{
	return CALL(DB_OF(s), column_bytes, s, i);
}
