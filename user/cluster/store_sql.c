// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The store's SQL statements, common to both backends (PostgreSQL's own text where it
 * differs: store_pg.c), prepared once, and the calls every writer and reader of the store
 * runs them with (store_sql.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clock.h"
#include "heaptap_types.h"
#include "log.h"
#include "store_sql.h"
#include "store_schema.h"

/* A group's row, or many (prepare_many): the statement around the VALUES. */
#define GROUPS_PUT_HEAD                                                                       \
	"INSERT INTO groups (process, kind, a, b, name, current, min, max, requested, "        \
	STORE_CALL_COLUMNS ") VALUES "
#define GROUPS_PUT_TAIL                                                                       \
	" ON CONFLICT (process, kind, a, b) DO UPDATE SET name = excluded.name, "             \
	"current = excluded.current, min = excluded.min, max = excluded.max, "                 \
	"requested = excluded.requested, malloc = excluded.malloc, calloc = excluded.calloc, " \
	"realloc = excluded.realloc, reallocarray = excluded.reallocarray, "                   \
	"free = excluded.free, memalign = excluded.memalign, "                                 \
	"posix_memalign = excluded.posix_memalign, aligned_alloc = excluded.aligned_alloc, "   \
	"valloc = excluded.valloc, pvalloc = excluded.pvalloc"
#define SAMPLES_ADD_HEAD "INSERT INTO samples (process, t, current, max) VALUES "

static const char *const sql[NR_STMTS] = {
	[AGENT_FIND] = "SELECT id, last_seq FROM agents WHERE uid = ?1",
	[AGENT_FIND_ID] = "SELECT last_seq FROM agents WHERE id = ?1",
	[AGENT_ADD] = "INSERT INTO agents (uid, host, command, pid, attribution, first_seen, "
		      "last_seen, state) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, 'connected') "
		      "ON CONFLICT (uid) DO NOTHING",
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
		    "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (key) DO NOTHING",
	[PROCESS_FIND] = "SELECT id, job, host, rank, pid FROM processes WHERE agent = ?1 AND "
			 "key = ?2",
	[PROCESS_ADD] = "INSERT INTO processes (run, agent, key, host, pid, rank, world_size, "
			"local_rank, job, command, allocator, usable_known, first_seen, last_seen, "
			"uid, user_name, sample_bytes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
			"?10, ?11, ?12, ?13, ?13, ?14, ?15, ?16) RETURNING id",
	[PROCESS_STATUS] = "UPDATE processes SET last_seen = ?2, state = ?3, exit_status = ?4, "
			   "signal = ?5, lost_events = ?6, incomplete_stacks = ?7, "
			   "holds_skipped = ?8, unsupported_unwinds = ?9 WHERE id = ?1",
	[NAME_FIND] = "SELECT id FROM names WHERE text = ?1",
	[NAME_ADD] = "INSERT INTO names (text) VALUES (?1) ON CONFLICT (text) DO NOTHING",
	/* An update in place where the group exists (most batches): no delete and insert. */
	[GROUP_PUT] = GROUPS_PUT_HEAD "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
		      "?14, ?15, ?16, ?17, ?18, ?19)" GROUPS_PUT_TAIL,
	[SAMPLE_ADD] = SAMPLES_ADD_HEAD "(?1, ?2, ?3, ?4)",
	[OWNER_PUT] = "INSERT INTO owner (process, blocks, bytes, peak_blocks, "
		      "peak_bytes, freed_calls, freed_bytes, freed_bytes_known, oom_time, "
		      "oom_blocks, oom_bytes, oom_cgroup) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
		      "?9, ?10, ?11, ?12) ON CONFLICT (process) DO UPDATE SET blocks = ?2, "
		      "bytes = ?3, peak_blocks = ?4, peak_bytes = ?5, freed_calls = ?6, "
		      "freed_bytes = ?7, freed_bytes_known = ?8, oom_time = ?9, oom_blocks = ?10, "
		      "oom_bytes = ?11, oom_cgroup = ?12",
	[OWNER_SITES_CLEAR] = "DELETE FROM owner_sites WHERE process = ?1",
	[OWNER_SITE_ADD] = "INSERT INTO owner_sites (process, kind, position, frames, blocks, "
			   "bytes, requested, likely_leak, growth_bytes_per_second) VALUES (?1, "
			   "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
};

/* Inserts that any writer may make at once: committed outside the round (see db.h). */
static unsigned outside(enum stmt which)
{
	return which == NAME_ADD || which == RUN_ADD || which == AGENT_ADD ? DB_OUTSIDE : 0;
}

/* Writes whose answers nobody reads: sent without waiting for them (see db.h). */
static unsigned pipelined(enum stmt which)
{
	switch (which) {
	case GROUP_PUT:
	case SAMPLE_ADD:
	case PROCESS_STATUS:
	case AGENT_SEQ:
	case OWNER_PUT:
	case OWNER_SITES_CLEAR:
	case OWNER_SITE_ADD:
		return DB_PIPELINE;
	default:
		return 0;
	}
}

struct db *store__db(struct store *st)
{
	return st->db;
}

int store_db_error(struct store *st, const char *what)
{
	char line[sizeof(st->errors[0].line)];
	double t = now();
	int oldest = 0;

	snprintf(line, sizeof(line), "%s: %s", what, db__errmsg(st->db));
	/* A server down for minutes: each of its errors once a minute, not at every try. */
	for (int i = 0; i < STORE_ERRORS_KEPT; i++) {
		if (!strcmp(line, st->errors[i].line) && t - st->errors[i].at < 60)
			return -EIO;
		if (st->errors[i].at < st->errors[oldest].at)
			oldest = i;
	}
	log_error("database: %s", line);
	memcpy(st->errors[oldest].line, line, sizeof(line));
	st->errors[oldest].at = t;
	return -EIO;
}

/*
 * One statement of `rows` rows of `params` parameters each: head, then "(?1, ...), (...)",
 * then tail. NULL when out of memory.
 */
static char *many_rows_sql(const char *head, int rows, int params, const char *tail)
{
	size_t size = strlen(head) + (size_t)rows * params * 8 + strlen(tail) + 1;
	char *text = malloc(size);
	size_t len;

	if (!text)
		return NULL;
	len = snprintf(text, size, "%s", head);
	for (int r = 0; r < rows; r++) {
		for (int c = 0; c < params; c++)
			len += snprintf(text + len, size - len, "%s?%d%s", c ? "" : r ? ", (" : "(",
					r * params + c + 1, c == params - 1 ? ")" : ", ");
	}
	snprintf(text + len, size - len, "%s", tail);
	return text;
}

/* PostgreSQL's statements of many rows: a round's writes in few statements. */
static int prepare_many(struct store *st)
{
	struct {
		struct db_stmt **stmt;
		const char *head, *tail;
		int rows, params;
	} many[] = {
		{ &st->groups_many, GROUPS_PUT_HEAD, GROUPS_PUT_TAIL, STORE_GROUPS_MANY,
		  STORE_GROUP_PARAMS },
		{ &st->samples_many, SAMPLES_ADD_HEAD, "", STORE_SAMPLES_MANY, STORE_SAMPLE_PARAMS },
	};

	for (size_t i = 0; i < sizeof(many) / sizeof(many[0]); i++) {
		char *text = many_rows_sql(many[i].head, many[i].rows, many[i].params, many[i].tail);

		*many[i].stmt = text ? db__prepare(st->db, text, DB_PERSISTENT | DB_PIPELINE) : NULL;
		free(text);
		if (!*many[i].stmt)
			return store_db_error(st, "prepare a statement of many rows");
	}
	return 0;
}

int store_sql__prepare(struct store *st, bool pg)
{
	for (int i = 0; i < NR_STMTS; i++) {
		const char *text = (pg ? store_pg__sql(i) : NULL) ?: sql[i];

		if (!(st->stmts[i] = db__prepare(st->db, text, DB_PERSISTENT | outside(i) | pipelined(i))))
			return store_db_error(st, text);
	}
	return pg ? prepare_many(st) : 0;
}

void store_sql__finalize(struct store *st)
{
	for (int i = 0; i < NR_STMTS; i++)
		db_stmt__finalize(st->stmts[i]);
	db_stmt__finalize(st->groups_many);
	db_stmt__finalize(st->samples_many);
}

struct db_stmt *store_stmt(struct store *st, enum stmt which)
{
	struct db_stmt *s = st->stmts[which];

	db_reset(s);
	db_clear_bindings(s);
	return s;
}

int store_run(struct store *st, struct db_stmt *s, const char *what)
{
	int rc = db_step(s);

	db_reset(s);
	return rc == DB_DONE ? 0 : store_db_error(st, what);
}

void store_bind_text(struct db_stmt *s, int i, const char *text)
{
	if (text)
		db_bind_text(s, i, text);
}
