// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The SQL only PostgreSQL speaks: its schema (store_schema_pg.h, the same tables as
 * SQLite's), its version in the table heaptap_schema, and the statements that differ.
 */
#include <errno.h>
#include <stdio.h>
#include "log.h"
#include "store_internal.h"
#include "store_schema.h"
#include "store_schema_pg.h"

const char *store_pg__sql(enum stmt which)
{
	switch (which) {
	/*
	 * The agent's row locked until the commit: a batch that an agent sends again to
	 * another collector (it reconnected) waits, then sees it stored, and is skipped.
	 */
	case AGENT_FIND_ID:
		return "SELECT last_seq FROM agents WHERE id = ?1 FOR UPDATE";
	default:
		return NULL;
	}
}

/* The schema's version, 0 where none is written, -1 if unreadable. */
static int version_of(struct db *db)
{
	struct db_stmt *s = db__prepare(db, "SELECT max(version) FROM heaptap_schema", 0);
	int version = -1;
	int rc = s ? db_step(s) : DB_ERROR;

	if (rc == DB_ROW)
		version = db_column_int(s, 0);
	db_stmt__finalize(s);
	return version;
}

static int check(struct db *db)
{
	int version = version_of(db);

	/* 4, the first on PostgreSQL, lacks only each process's user: read without it. */
	if (version >= 4 && version <= STORE_SCHEMA_VERSION)
		return 0;
	if (version > STORE_SCHEMA_VERSION)
		log_error("the database %s is of heaptap schema %d, newer than this heaptap's %d: "
			  "use a newer heaptap", db__name(db), version, STORE_SCHEMA_VERSION);
	else
		log_error("the database %s is not heaptap's (no heaptap_schema of version 4 to "
			  "%d): give the database heaptap collect --db wrote", db__name(db),
			  STORE_SCHEMA_VERSION);
	return -EIO;
}

int store_pg__setup(struct db *db, bool read_only)
{
	char sql[128];

	if (read_only)
		return check(db);
	/*
	 * Created by the first collector, once: the others wait on the lock, then find it.
	 * Up to date, nothing is changed: DDL would lock the tables other collectors write.
	 * A database of a newer schema is refused before anything changes it.
	 */
	snprintf(sql, sizeof(sql), "INSERT INTO heaptap_schema (version) SELECT %d WHERE NOT "
		 "EXISTS (SELECT 1 FROM heaptap_schema)", STORE_SCHEMA_VERSION);
	if (db__exec(db, "BEGIN; SET LOCAL client_min_messages = warning; "
			 "SELECT pg_advisory_xact_lock(7478) /* heaptap */;"
			 "CREATE TABLE IF NOT EXISTS heaptap_schema (version INTEGER NOT NULL);") ||
	    (version_of(db) < STORE_SCHEMA_VERSION &&
	     (db__exec(db, STORE_PG_SCHEMA) || db__exec(db, STORE_PG_UPGRADE) ||
	      db__exec(db, sql))) ||
	    db__exec(db, "COMMIT")) {
		log_error("cannot use the database %s as heaptap's: %s", db__name(db),
			  db__errmsg(db));
		db__exec(db, "ROLLBACK");
		return -EIO;
	}
	return check(db);
}
