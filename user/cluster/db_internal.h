/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What db.c dispatches to: each backend's calls. Each backend's db_stmt begins with its db;
 * its close frees what its open made, the db itself included.
 */
#ifndef HEAPTAP_DB_INTERNAL_H
#define HEAPTAP_DB_INTERNAL_H

#include "db.h"

struct db {
	enum db_kind kind;
	char *name;
};

#define DB_BACKEND_CALLS(p)                                                                   \
	void p##close(struct db *db);                                                         \
	const char *p##errmsg(struct db *db);                                                 \
	int p##exec(struct db *db, const char *sql);                                          \
	int64_t p##changes(struct db *db);                                                    \
	bool p##in_transaction(struct db *db);                                                \
	struct db_stmt *p##prepare(struct db *db, const char *sql, unsigned flags);          \
	void p##finalize(struct db_stmt *s);                                                  \
	void p##reset(struct db_stmt *s);                                                     \
	void p##clear_bindings(struct db_stmt *s);                                            \
	void p##bind_int64(struct db_stmt *s, int i, int64_t v);                              \
	void p##bind_double(struct db_stmt *s, int i, double v);                              \
	void p##bind_text(struct db_stmt *s, int i, const char *text);                        \
	int p##step(struct db_stmt *s);                                                       \
	bool p##column_null(struct db_stmt *s, int i);                                        \
	int64_t p##column_int64(struct db_stmt *s, int i);                                    \
	double p##column_double(struct db_stmt *s, int i);                                    \
	const char *p##column_text(struct db_stmt *s, int i);                                 \
	size_t p##column_bytes(struct db_stmt *s, int i);

int db_sqlite__open(const char *path, bool read_only, struct db **out);
DB_BACKEND_CALLS(db_sqlite__)
int db_pg__open(const char *conninfo, bool read_only, struct db **out);
int db_pg__ensure(struct db *db);
DB_BACKEND_CALLS(db_pg__)

#endif
