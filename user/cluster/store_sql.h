/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What every writer and reader of the store stands on: struct store, its SQL statements
 * (store_sql.c) and the calls that run them.
 */
#ifndef HEAPTAP_STORE_SQL_H
#define HEAPTAP_STORE_SQL_H

#include "db.h"
#include <uthash.h>
#include "store.h"
#include "store_pending.h"

enum stmt {
	AGENT_FIND, AGENT_FIND_ID, AGENT_ADD, AGENT_HELLO, AGENT_GONE, AGENT_SEQ,
	LOST_AGENTS, LOST_LISTED, LOST_PROCESSES, STALE_AGENTS,
	AGENT_INFO, RUN_FIND, RUN_ADD, PROCESS_FIND, PROCESS_ADD, PROCESS_STATUS,
	NAME_FIND, NAME_ADD, GROUP_PUT, SAMPLE_ADD, OWNER_PUT, OWNER_SITES_CLEAR, OWNER_SITE_ADD,
	NR_STMTS,
};

/*
 * Groups a round's commit writes per statement on PostgreSQL, where each statement costs
 * the server as much as a row: 64 rows of 19 parameters.
 */
#define STORE_GROUPS_MANY 64
#define STORE_GROUP_PARAMS (9 + HT_NR_FUNCS)
/* Samples likewise: 256 rows of 4. */
#define STORE_SAMPLES_MANY 256
#define STORE_SAMPLE_PARAMS 4

/* Errors logged lately, each not again for a minute. */
#define STORE_ERRORS_KEPT 8

/* Names seen, by text: most batches repeat the names of the one before. */
struct name_id {
	int64_t id;
	UT_hash_handle hh;
	char text[];
};

/* A point of a process's series: written at the commit, with the groups. */
struct pending_sample {
	int64_t process, current, max;
	double t;
};

/* A process's newest status, written at the commit (like its groups). */
struct process_status {
	double last_seen;
	const char *state;
	int exit_status, signal; /* -1: none */
	uint64_t lost_events, incomplete_stacks, holds_skipped, unsupported_unwinds;
	bool pending;
};

/* A process known to this collector: its database id and what metrics call it. */
struct known_process {
	struct { int64_t agent; uint64_t key; } k;
	int64_t id;
	char *job, *host;
	int rank, pid;
	struct process_status status;
	UT_hash_handle hh;
};

struct store {
	struct db *db;
	struct db_stmt *stmts[NR_STMTS];
	struct db_stmt *groups_many; /* PostgreSQL: STORE_GROUPS_MANY groups in one statement */
	struct db_stmt *samples_many; /* and STORE_SAMPLES_MANY samples */
	struct {
		char line[512];
		double at; /* logged then (monotonic seconds) */
	} errors[STORE_ERRORS_KEPT];
	struct name_id *names;
	struct known_process *processes;
	struct pending_groups pending; /* changed in the transaction, not yet written */
	struct pending_put *puts;      /* one process's groups, being staged */
	size_t puts_cap;
	size_t pending_statuses;
	struct pending_sample *samples; /* of the round, in the order received */
	size_t nr_samples, samples_cap;
};

/*
 * Prepare every statement (pg: PostgreSQL's text, and its statements of many rows). 0, or
 * -EIO after one line.
 */
int store_sql__prepare(struct store *st, bool pg);
/* Finalize what store_sql__prepare made (those it did not are NULL). */
void store_sql__finalize(struct store *st);
/* The statement, reset and ready for its bindings. */
struct db_stmt *store_stmt(struct store *st, enum stmt which);
/* Run a statement that returns no row. 0 or -EIO (logged). */
int store_run(struct store *st, struct db_stmt *s, const char *what);
/* what and the database's error, logged (each line at most once a minute). -EIO. */
int store_db_error(struct store *st, const char *what);
/* text bound to parameter i; NULL leaves it NULL. */
void store_bind_text(struct db_stmt *s, int i, const char *text);
struct db *store__db(struct store *st);
/* PostgreSQL's text of a statement where it differs from the common one; NULL if not. */
const char *store_pg__sql(enum stmt which);

#endif
