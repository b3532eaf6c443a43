// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Reading stored runs back: the list, and one run as the report writers take it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "heaptap_types.h"
#include "log.h"
#include "store_sql.h"
#include "store_os.h"
#include "store_owner.h"
#include "store_read.h"
#include "store_schema.h"

bool store_is_database(const char *path)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	FILE *f;
	bool is;

	if (db__is_postgresql(path))
		return true;
	f = fopen(path, "rb");
	if (!f)
		return false;
	is = fread(head, 1, sizeof(head), f) == sizeof(head) && !memcmp(head, magic, 16);
	fclose(f);
	return is;
}

static const char *text_or(struct db_stmt *s, int i, const char *otherwise)
{
	const char *t = db_column_text(s, i);

	return t ? t : otherwise;
}

int store__list_runs(struct store *st, FILE *out)
{
	struct db_stmt *s;
	int rc;

	if (!(s = db__prepare(store__db(st), "SELECT r.id, r.job, r.started, "
			       "  count(DISTINCT p.rank), count(DISTINCT p.host), count(p.id), "
			       "  r.command FROM runs r LEFT JOIN processes p ON p.run = r.id "
			       "GROUP BY r.id ORDER BY r.id", 0)))
		return store_db_error(st, "list runs");
	fprintf(out, "%-6s %-24s %-20s %6s %6s %9s  %s\n", "RUN", "JOB", "STARTED", "RANKS",
		"HOSTS", "PROCESSES", "COMMAND");
	while ((rc = db_step(s)) == DB_ROW) {
		time_t started = (time_t)db_column_double(s, 2);
		char when[32] = "?";
		struct tm tm;

		if (localtime_r(&started, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(out, "%-6" PRId64 " %-24s %-20s %6d %6d %9d  %s\n",
			(int64_t)db_column_int64(s, 0), text_or(s, 1, "-"), when,
			db_column_int(s, 3), db_column_int(s, 4),
			db_column_int(s, 5), text_or(s, 6, ""));
	}
	db_stmt__finalize(s);
	fflush(out);
	return rc == DB_DONE ? 0 : store_db_error(st, "list runs");
}

static void column_balance(struct db_stmt *s, int first, struct balance *b)
{
	b->current = db_column_int64(s, first);
	b->min = db_column_int64(s, first + 1);
	b->max = db_column_int64(s, first + 2);
	b->requested = db_column_int64(s, first + 3);
	for (int f = 0; f < HT_NR_FUNCS; f++)
		b->calls[f] = db_column_int64(s, first + 4 + f);
}

/* Fill p's groups (only its total with totals_only). 0 or -EIO / -ENOMEM. */
static int load_groups(struct store *st, struct db_stmt *s, struct run_process *p)
{
	int rc, err = 0;

	db_reset(s);
	db_bind_int64(s, 1, p->id);
	while (!err && (rc = db_step(s)) == DB_ROW) {
		const char *name = db_column_text(s, 2);
		const char *lib = text_or(s, 3, "?"), *fn = text_or(s, 4, "?");
		struct balance b;

		column_balance(s, 5, &b);
		switch (db_column_int(s, 0)) {
		case STORE_TOTAL:
			p->t.stats.total = b;
			break;
		case STORE_THREAD:
			err = accountant__set_thread(&p->t.stats, db_column_int64(s, 1),
						     name, &b);
			break;
		case STORE_LIBRARY:
			err = accountant__set_library(&p->t.stats, lib, &b);
			break;
		default:
			err = accountant__set_function(&p->t.stats, lib, fn, &b);
			break;
		}
	}
	if (err)
		return err;
	return rc == DB_DONE ? 0 : store_db_error(st, "read groups");
}

/* sample_bytes: the column's name (schema 6), or NULL (an older file, read only). */
#define PROCESS_COLUMNS_WITH(sample_bytes)                                                    \
	"SELECT p.id, p.host, p.pid, p.rank, p.world_size, p.local_rank, p.job, p.command, "  \
	"p.allocator, p.usable_known, p.state, p.exit_status, p.signal, p.lost_events, "      \
	"p.incomplete_stacks, p.holds_skipped, p.unsupported_unwinds, a.dropped_messages, "   \
	sample_bytes " "                                                                      \
	"FROM processes p JOIN agents a ON a.id = p.agent "

static int int_or(struct db_stmt *s, int i, int otherwise)
{
	return db_column_null(s, i) ? otherwise : db_column_int(s, i);
}

static int load_process(struct db_stmt *s, struct run_process *p)
{
	struct target *t = &p->t;

	p->id = db_column_int64(s, 0);
	snprintf(p->host, sizeof(p->host), "%s", text_or(s, 1, "?"));
	t->pid = db_column_int(s, 2);
	t->mpi.rank = int_or(s, 3, -1);
	t->mpi.world_size = int_or(s, 4, -1);
	t->mpi.local_rank = int_or(s, 5, -1);
	snprintf(t->mpi.job, sizeof(t->mpi.job), "%s", text_or(s, 6, ""));
	snprintf(t->command, sizeof(t->command), "%s", text_or(s, 7, "?"));
	t->probed = !db_column_null(s, 8);
	snprintf(t->alloc.path, sizeof(t->alloc.path), "%s", text_or(s, 8, ""));
	t->alloc.glibc = db_column_int(s, 9);
	run_process__set_state(p, text_or(s, 10, "running"), int_or(s, 11, -1), int_or(s, 12, -1));
	p->facts.lost_events = db_column_int64(s, 13);
	t->incomplete_stacks = db_column_int64(s, 14);
	p->facts.holds_skipped = db_column_int64(s, 15);
	t->unsupported_unwinds = db_column_int64(s, 16);
	p->facts.dropped_messages = db_column_int64(s, 17);
	t->owner.sample_bytes = db_column_null(s, 18) ? 0 : (uint64_t)db_column_int64(s, 18);
	return 0;
}

static int load_run_row(struct store *st, int64_t id, struct run_view *v)
{
	struct db_stmt *s;
	int rc;

	if (!(s = db__prepare(store__db(st), "SELECT id, job, command, started, attribution "
					      "FROM runs WHERE id = ?1", 0)))
		return store_db_error(st, "read run");
	db_bind_int64(s, 1, id);
	rc = db_step(s);
	if (rc == DB_ROW) {
		v->id = db_column_int64(s, 0);
		snprintf(v->job, sizeof(v->job), "%s", text_or(s, 1, ""));
		snprintf(v->command, sizeof(v->command), "%s", text_or(s, 2, ""));
		v->started = db_column_double(s, 3);
		if (attribution_rule_parse(text_or(s, 4, "entry"), &v->rule))
			v->rule = ATTRIBUTE_ENTRY;
	}
	db_stmt__finalize(s);
	if (rc == DB_ROW)
		return 0;
	return rc == DB_DONE ? -ENOENT : store_db_error(st, "read run");
}

/* Has processes a sample_bytes column (schema 6)? A file opened read only may be older. */
static bool has_sample_bytes(struct store *st)
{
	struct db *db = store__db(st);
	struct db_stmt *s = db__prepare(db, db__kind(db) == DB_POSTGRESQL ?
		"SELECT count(*) FROM information_schema.columns WHERE table_name = 'processes' "
		"AND column_name = 'sample_bytes'" :
		"SELECT count(*) FROM pragma_table_info('processes') WHERE name = 'sample_bytes'", 0);
	bool has = s && db_step(s) == DB_ROW && db_column_int(s, 0) > 0;

	db_stmt__finalize(s);
	return has;
}

int store__load_run(struct store *st, int64_t id, int64_t process, bool totals_only,
		    struct run_view *v)
{
	struct db_stmt *ps = NULL, *gs = NULL;
	int rc, err;

	memset(v, 0, sizeof(*v));
	if (!id && !(id = store__newest_run(st)))
		return -ENOENT;
	if ((err = load_run_row(st, id, v)))
		return err;
#define PROCESSES_OF_RUN "WHERE p.run = ?1 AND (?2 = 0 OR p.id = ?2) " \
	"ORDER BY p.rank IS NULL, p.rank, p.host, p.pid, p.id"

	/* A file of schema 5 or older opened read only has no sample_bytes: exact figures. */
	if (has_sample_bytes(st))
		ps = db__prepare(store__db(st),
				 PROCESS_COLUMNS_WITH("p.sample_bytes") PROCESSES_OF_RUN, 0);
	else
		ps = db__prepare(store__db(st), PROCESS_COLUMNS_WITH("NULL") PROCESSES_OF_RUN, 0);
	if (!ps ||
	    !(gs = db__prepare(store__db(st), "SELECT g.kind, g.a, g.name, l.text, f.text, g.current, g.min, "
			       "g.max, g.requested, " STORE_CALL_COLUMNS " FROM groups g "
			       "LEFT JOIN names l ON g.kind IN (2, 3) AND l.id = g.a "
			       "LEFT JOIN names f ON g.kind = 3 AND f.id = g.b "
			       "WHERE g.process = ?1 AND (?2 = 0 OR g.kind = 0)", 0))) {
		err = store_db_error(st, "read processes");
		goto cleanup;
	}
	db_bind_int64(ps, 1, v->id);
	db_bind_int64(ps, 2, process);
	db_bind_int(gs, 2, totals_only);
	while ((rc = db_step(ps)) == DB_ROW) {
		struct run_process *p = run_view__add(v);

		if (!p) {
			err = -ENOMEM;
			goto cleanup;
		}
		load_process(ps, p);
		db_bind_int(gs, 2, totals_only);
		if ((err = load_groups(st, gs, p)))
			goto cleanup;
		/* The owner's totals even so: top --collector's table shows them. */
		if ((err = store_owner__load(st, p->id, totals_only, &p->owner)) ||
		    (!totals_only && (err = store_os__load(st, p))))
			goto cleanup;
	}
	if (rc != DB_DONE)
		err = store_db_error(st, "read processes");
cleanup:
	db_stmt__finalize(ps);
	db_stmt__finalize(gs);
	if (err)
		run_view__clear(v);
	return err;
}

int store__load_samples(struct store *st, int64_t process, double since,
			struct store_sample **out, size_t *nr)
{
	struct store_sample *list = malloc(sizeof(*list)), *grown;
	size_t n = 0, cap = 1;
	struct db_stmt *s;
	int rc;

	*out = NULL;
	*nr = 0;
	if (!list)
		return -ENOMEM;
	if (!(s = db__prepare(store__db(st), "SELECT t, current, max FROM samples WHERE "
					      "process = ?1 ORDER BY t", 0))) {
		free(list);
		return store_db_error(st, "read samples");
	}
	db_bind_int64(s, 1, process);
	while ((rc = db_step(s)) == DB_ROW) {
		if (n == cap) {
			if (!(grown = realloc(list, 2 * cap * sizeof(*list)))) {
				rc = -ENOMEM;
				break;
			}
			list = grown;
			cap *= 2;
		}
		list[n++] = (struct store_sample){
			/* Milliseconds are enough to plot, and keep the numbers short. */
			.t = (double)(int64_t)((db_column_double(s, 0) - since) * 1000) / 1000,
			.current = db_column_int64(s, 1),
			.max = db_column_int64(s, 2),
		};
	}
	db_stmt__finalize(s);
	if (rc != DB_DONE) {
		free(list);
		return rc == -ENOMEM ? -ENOMEM : store_db_error(st, "read samples");
	}
	*out = list;
	*nr = n;
	return 0;
}
