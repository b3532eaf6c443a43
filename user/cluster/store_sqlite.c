// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The SQL only SQLite speaks: its schema (store_schema.h), the file's settings, and its
 * version in PRAGMA user_version.
 */
#include <errno.h>
#include "log.h"
#include "store_internal.h"
#include "store_schema.h"

#define TEXT_OF(n) #n
#define SCHEMA_VERSION_TEXT_OF(n) TEXT_OF(n)
#define SCHEMA_VERSION_TEXT SCHEMA_VERSION_TEXT_OF(STORE_SCHEMA_VERSION)

/* The file's PRAGMA user_version: 0 for a new file, -1 if unreadable. */
static int user_version(struct db *db)
{
	struct db_stmt *s = db__prepare(db, "PRAGMA user_version", 0);
	int version = -1;

	if (s && db_step(s) == DB_ROW)
		version = db_column_int(s, 0);
	db_stmt__finalize(s);
	return version;
}

/* Is db heaptap's, of a schema this heaptap reads? 0, or -EIO after one line. */
static int check_schema(struct db *db, const char *path)
{
	int version = user_version(db), tables = 0;
	struct db_stmt *s = db__prepare(db, "SELECT count(*) FROM sqlite_master WHERE type = "
					    "'table' AND name IN ('agents', 'runs', 'processes', "
					    "'groups', 'samples')", 0);

	if (s && db_step(s) == DB_ROW)
		tables = db_column_int(s, 0);
	db_stmt__finalize(s);
	if (version < 0) {
		log_error("%s is not an SQLite database: give the file heaptap collect --db wrote",
			  path);
		return -EIO;
	}
	/* Schema 1 lacks the owner tables, 2 their freed_* columns: read as runs without them. */
	if (version < 1 || version > STORE_SCHEMA_VERSION || tables != 5) {
		log_error("%s is not a heaptap database of schema %d (user_version %d): give "
			  "the file heaptap collect --db wrote", path, STORE_SCHEMA_VERSION,
			  version);
		return -EIO;
	}
	return 0;
}

/*
 * A file of an older schema gains the columns of a newer one (table's column, added by
 * the statements alter, of schema version); 0, or -EIO after one logged line.
 */
static int add_columns(struct db *db, const char *path, const char *has_column,
		       const char *alter, int version)
{
	struct db_stmt *s = db__prepare(db, has_column, 0);
	int has = -1;

	if (s && db_step(s) == DB_ROW)
		has = db_column_int(s, 0);
	db_stmt__finalize(s);
	if (has < 0) {
		log_error("database: read the owner table's columns: %s", db__errmsg(db));
		return -EIO;
	}
	/* In one transaction: a collector stopped halfway leaves the file as it was. */
	if (has || (!db__exec(db, "BEGIN IMMEDIATE") && !db__exec(db, alter) &&
		    !db__exec(db, "COMMIT")))
		return 0;
	log_error("cannot bring %s to schema %d: %s", path, version, db__errmsg(db));
	db__exec(db, "ROLLBACK");
	return -EIO;
}

int store_sqlite__setup(struct db *db, const char *path, bool read_only)
{
	/* A file of a newer schema is refused before anything changes it. */
	if (!read_only && user_version(db) > STORE_SCHEMA_VERSION)
		return check_schema(db, path);
	/*
	 * WAL: a commit is one append, readers (heaptap report) never block the collector.
	 * synchronous=FULL: what was acknowledged survives even the machine's crash. Every
	 * rank's groups are updated each second or so: they stay in a large page cache, and
	 * a hot page goes to the database once per 64 MiB of log rather than per 4 MiB.
	 */
	if (!read_only &&
	    db__exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; "
			 "PRAGMA cache_size=-262144; PRAGMA wal_autocheckpoint=16384; "
			 "PRAGMA foreign_keys=ON;" STORE_SCHEMA)) {
		log_error("cannot use %s as heaptap's database: %s", path, db__errmsg(db));
		return -EIO;
	}
	if (!read_only &&
	    (add_columns(db, path, "SELECT count(*) FROM pragma_table_info('owner') WHERE name = "
			 "'freed_calls'", STORE_OWNER_FREED_COLUMNS, 3) ||
	     add_columns(db, path, "SELECT count(*) FROM pragma_table_info('processes') WHERE "
			 "name = 'uid'", STORE_PROCESS_USER_COLUMNS, 5) ||
	     add_columns(db, path, "SELECT count(*) FROM pragma_table_info('owner') WHERE name = "
			 "'oom_time'", STORE_OWNER_OOM_COLUMNS, 6) ||
	     add_columns(db, path, "SELECT count(*) FROM pragma_table_info('processes') WHERE "
			 "name = 'sample_bytes'", STORE_PROCESS_SAMPLE_COLUMNS, 7) ||
			   db__exec(db, "PRAGMA user_version=" SCHEMA_VERSION_TEXT ";")))
		return -EIO;
	return check_schema(db, path);
}
