/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The SQL database under the store: an SQLite file (db_sqlite.c) or a PostgreSQL server
 * (db_pg.c), behind one set of calls shaped like SQLite's. Statements are written with
 * ?1, ?2... parameters; a statement binds, steps row by row, and is reset to run again.
 * What SQL differs between the two is in store_sql.c, one table per backend.
 */
#ifndef HEAPTAP_DB_H
#define HEAPTAP_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum db_kind { DB_SQLITE, DB_POSTGRESQL };
enum { DB_DONE = 0, DB_ROW = 1, DB_ERROR = -1 };

/* Statement flags. */
enum {
	DB_PERSISTENT = 1, /* run many times: prepared once per connection */
	/*
	 * Committed at once, outside the transaction under way (on PostgreSQL a second
	 * connection): an insert of a name that other writers may insert too, which must not
	 * make them wait for this transaction. SQLite has one writer: run inside it.
	 */
	DB_OUTSIDE = 2,
	/*
	 * A write whose rows and count nobody reads, inside a transaction: on PostgreSQL sent
	 * without waiting for its answer (libpq's pipeline mode), its error, if any, reported
	 * by the next statement that waits, or by the COMMIT.
	 */
	DB_PIPELINE = 4,
};

struct db;
struct db_stmt;

/* Is target a PostgreSQL connection string (URI or key=value list) rather than a file? */
bool db__is_postgresql(const char *target);
/* Open target. 0 or -errno after one logged line that says what to do. */
int db__open(const char *target, bool read_only, struct db **out);
void db__close(struct db *db);
enum db_kind db__kind(const struct db *db);
/* The target without its password, for messages. */
const char *db__name(const struct db *db);
const char *db__errmsg(struct db *db);
/* Run one or more statements without parameters. 0 or -EIO (not logged). */
int db__exec(struct db *db, const char *sql);
/* Rows changed by the last statement. */
int64_t db__changes(struct db *db);
/* Inside BEGIN ... COMMIT? */
bool db__in_transaction(struct db *db);
/* Before a transaction: a connection lost (server restarted) is made again. 0 or -EIO. */
int db__ensure(struct db *db);

/* NULL after db__errmsg has the reason. */
struct db_stmt *db__prepare(struct db *db, const char *sql, unsigned flags);
void db_stmt__finalize(struct db_stmt *s);
/* Ready to run again; its bindings kept. */
void db_reset(struct db_stmt *s);
void db_clear_bindings(struct db_stmt *s);
void db_bind_int64(struct db_stmt *s, int i, int64_t v);
void db_bind_int(struct db_stmt *s, int i, int v);
void db_bind_double(struct db_stmt *s, int i, double v);
/* NULL binds NULL. */
void db_bind_text(struct db_stmt *s, int i, const char *text);
void db_bind_null(struct db_stmt *s, int i);
/* DB_ROW, DB_DONE or DB_ERROR. */
int db_step(struct db_stmt *s);
bool db_column_null(struct db_stmt *s, int i);
int64_t db_column_int64(struct db_stmt *s, int i);
int db_column_int(struct db_stmt *s, int i);
double db_column_double(struct db_stmt *s, int i);
/* NULL for NULL. */
const char *db_column_text(struct db_stmt *s, int i);
size_t db_column_bytes(struct db_stmt *s, int i);

#endif
