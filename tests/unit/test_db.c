// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* db.h: which backend a target names, and SQLite's side of the interface the store uses. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "db.h"

TestSuite(db);

Test(db, a_target_names_its_backend)
{
	cr_expect(db__is_postgresql("postgresql://db.example.org/heaptap"));
	cr_expect(db__is_postgresql("postgres://u@h:5433/d?sslmode=verify-full"));
	cr_expect(db__is_postgresql("host=db.example.org dbname=heaptap"));
	cr_expect(db__is_postgresql("host=/var/run/postgresql dbname=heaptap"));
	cr_expect(db__is_postgresql(" service = heaptap"));
	cr_expect(db__is_postgresql("runs.sqlite") == false);
	cr_expect(db__is_postgresql("/var/lib/heaptap/runs.sqlite") == false);
	cr_expect(db__is_postgresql("./a=b.sqlite") == false);
	cr_expect(db__is_postgresql("Runs=1.sqlite") == false);
	cr_expect(db__is_postgresql("") == false);
}

Test(db, sqlite_binds_steps_and_resets)
{
	char path[] = "/tmp/heaptap-db-XXXXXX";
	int fd = mkstemp(path);
	struct db_stmt *ins, *sel;
	struct db *db;

	cr_assert(fd >= 0);
	close(fd);
	cr_assert(eq(int, db__open(path, false, &db), 0));
	cr_expect(eq(int, db__kind(db), DB_SQLITE));
	cr_assert(eq(int, db__exec(db, "CREATE TABLE t (i INTEGER, d REAL, s TEXT)"), 0));
	cr_expect(db__in_transaction(db) == false);
	cr_assert(eq(int, db__exec(db, "BEGIN"), 0));
	cr_expect(db__in_transaction(db));
	ins = db__prepare(db, "INSERT INTO t (i, d, s) VALUES (?1, ?2, ?3)", DB_PERSISTENT);
	cr_assert(ins != NULL);
	db_bind_int64(ins, 1, -(1LL << 40));
	db_bind_double(ins, 2, 1764266798.123456);
	db_bind_text(ins, 3, "it's");
	cr_expect(eq(int, db_step(ins), DB_DONE));
	/* Reset keeps the bindings; cleared, they are NULL. */
	db_reset(ins);
	cr_expect(eq(int, db_step(ins), DB_DONE));
	db_reset(ins);
	db_clear_bindings(ins);
	db_bind_int(ins, 1, 7);
	cr_expect(eq(int, db_step(ins), DB_DONE));
	cr_expect(eq(i64, db__changes(db), 1));
	db_stmt__finalize(ins);
	cr_assert(eq(int, db__exec(db, "COMMIT"), 0));
	sel = db__prepare(db, "SELECT i, d, s FROM t WHERE i < ?1 ORDER BY rowid", 0);
	cr_assert(sel != NULL);
	db_bind_int64(sel, 1, 100);
	for (int row = 0; row < 3; row++) {
		cr_assert(eq(int, db_step(sel), DB_ROW), "row %d", row);
		if (row < 2) {
			cr_expect(eq(i64, db_column_int64(sel, 0), -(1LL << 40)));
			cr_expect(db_column_double(sel, 1) == 1764266798.123456);
			cr_expect(eq(str, (char *)db_column_text(sel, 2), "it's"));
			cr_expect(eq(sz, db_column_bytes(sel, 2), 4));
		} else {
			cr_expect(eq(int, db_column_int(sel, 0), 7));
			cr_expect(db_column_null(sel, 1) && db_column_null(sel, 2));
			cr_expect(db_column_text(sel, 2) == NULL);
		}
	}
	cr_expect(eq(int, db_step(sel), DB_DONE));
	db_stmt__finalize(sel);
	cr_expect(db__prepare(db, "SELECT x FROM nowhere", 0) == NULL);
	cr_expect(strstr(db__errmsg(db), "no such table") != NULL, "%s", db__errmsg(db));
	db__close(db);
	unlink(path);
}
