// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * db.h on a PostgreSQL server through libpq. Parameters travel as text; ?N becomes $N.
 * A statement run many times is prepared once per connection; a connection lost (the
 * server restarted) is made again before the next transaction, and its statements
 * prepared again. The password is never in the connection string: libpq reads it from
 * PGPASSFILE, ~/.pgpass or a service file, or from the systemd credential "pgpass".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libpq-fe.h>
#include "db.h"
#include "db_internal.h"
#include "log.h"

struct db_pg {
	struct db base;
	PGconn *c, *side; /* side: DB_OUTSIDE statements, autocommit */
	unsigned generation; /* of c: a statement prepared in an older one is prepared again */
	unsigned next_name;
	int64_t changes;
	bool read_only;
	bool in_tx; /* BEGIN ran on c, no COMMIT or ROLLBACK since: never made again */
	int queued; /* DB_PIPELINE statements sent on c, their answers not read */
	char err[512];
};

struct db_stmt {
	struct db *db;
	char *sql; /* with $N */
	unsigned flags;
	int nparams;
	char **values;
	PGresult *res;
	int row, rows;
	unsigned prepared; /* the generation it was prepared in, 0: not */
	char name[24];
};

static struct db_pg *pg(struct db *db)
{
	return (struct db_pg *)db;
}

static void set_err(struct db_pg *d, const char *msg)
{
	size_t n;

	snprintf(d->err, sizeof(d->err), "%s", msg && *msg ? msg : "unknown error");
	/* libpq's messages run on over lines ("Is the server running...?"): the first. */
	n = strcspn(d->err, "\n");
	d->err[n] = '\0';
}

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message; /* NOTICEs ("relation exists, skipping") are not for the user */
}

/* A password in the connection string would show in ps and shell histories: refused. */
static int check_no_password(const char *conninfo)
{
	char *msg = NULL;
	PQconninfoOption *opts = PQconninfoParse(conninfo, &msg), *o;
	int err = 0;

	if (!opts) {
		log_error("%s is not a PostgreSQL connection string: %s", conninfo,
			  msg ? strtok(msg, "\n") : "out of memory");
		PQfreemem(msg);
		return -EINVAL;
	}
	for (o = opts; o->keyword; o++) {
		if (!strcmp(o->keyword, "password") && o->val && *o->val) {
			log_error("the database's password is not taken on the command line: put "
				  "it in PGPASSFILE, ~/.pgpass, a service file or the systemd "
				  "credential pgpass");
			err = -EINVAL;
		}
	}
	PQconninfoFree(opts);
	return err;
}

static PGconn *connect_to(struct db_pg *d, const char *conninfo)
{
	PGconn *c = PQconnectdb(conninfo);

	if (!c || PQstatus(c) != CONNECTION_OK) {
		set_err(d, c ? PQerrorMessage(c) : "out of memory");
		PQfinish(c);
		return NULL;
	}
	PQsetNoticeProcessor(c, quiet, NULL);
	if (d->read_only) {
		PGresult *r = PQexec(c, "SET default_transaction_read_only = on");

		PQclear(r);
	}
	return c;
}

int db_pg__open(const char *conninfo, bool read_only, struct db **out)
{
	struct db_pg *d;
	const char *creds = getenv("CREDENTIALS_DIRECTORY");
	char path[4096];
	int err;

	if ((err = check_no_password(conninfo)))
		return err;
	/* systemd's LoadCredential=pgpass:...: the password file libpq reads. */
	if (creds && !getenv("PGPASSFILE") &&
	    snprintf(path, sizeof(path), "%s/pgpass", creds) < (int)sizeof(path) &&
	    !access(path, R_OK))
		setenv("PGPASSFILE", path, 0);
	d = calloc(1, sizeof(*d));
	if (!d || !(d->base.name = strdup(conninfo))) {
		free(d);
		return -ENOMEM;
	}
	d->base.kind = DB_POSTGRESQL;
	d->read_only = read_only;
	d->generation = 1;
	d->c = connect_to(d, conninfo);
	if (!d->c) {
		log_error("cannot connect to the database %s: %s", conninfo, d->err);
		db_pg__close(&d->base);
		return -EIO;
	}
	*out = &d->base;
	return 0;
}

void db_pg__close(struct db *db)
{
	struct db_pg *d = pg(db);

	PQfinish(d->c);
	PQfinish(d->side);
	free(d->base.name);
	free(d);
}

static int reconnect(struct db_pg *d, PGconn **c)
{
	if (*c && PQstatus(*c) == CONNECTION_OK)
		return 0;
	if (*c) {
		PQreset(*c);
		if (PQstatus(*c) == CONNECTION_OK) {
			PQsetNoticeProcessor(*c, quiet, NULL);
			if (c == &d->c)
				d->generation++;
			return 0;
		}
		set_err(d, PQerrorMessage(*c));
		return -EIO;
	}
	*c = connect_to(d, d->base.name);
	if (c == &d->c)
		d->generation++;
	return *c ? 0 : -EIO;
}

static int result_ok(struct db_pg *d, PGconn *c, PGresult *r);

/* The answers of the statements sent in pipeline mode, read; 0, or -EIO with the first error. */
static int drain(struct db_pg *d)
{
	int err = 0, nulls = 0;

	if (!d->c || PQpipelineStatus(d->c) == PQ_PIPELINE_OFF)
		return 0;
	if (!d->queued) {
		PQexitPipelineMode(d->c);
		return 0;
	}
	if (!PQpipelineSync(d->c)) {
		set_err(d, PQerrorMessage(d->c));
		err = -EIO;
	}
	/* Each statement's answer and a NULL after it, then the sync's. */
	while (!err || PQstatus(d->c) == CONNECTION_OK) {
		PGresult *r = PQgetResult(d->c);
		ExecStatusType st;

		if (!r) {
			if (PQstatus(d->c) != CONNECTION_OK || ++nulls > d->queued + 1)
				break;
			continue;
		}
		st = PQresultStatus(r);
		if (st == PGRES_PIPELINE_SYNC) {
			PQclear(r);
			break;
		}
		if (!err && st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
			set_err(d, st == PGRES_PIPELINE_ABORTED ? "a statement before failed"
								: PQresultErrorMessage(r));
			err = -EIO;
		}
		PQclear(r);
	}
	if (PQstatus(d->c) != CONNECTION_OK && !err) {
		set_err(d, PQerrorMessage(d->c));
		err = -EIO;
	}
	d->queued = 0;
	PQexitPipelineMode(d->c);
	return err;
}

/* A pipelined write sent; 0 or -EIO. */
static int send_pipelined(struct db_pg *d, struct db_stmt *s)
{
	if (s->prepared != d->generation) {
		PGresult *r;
		int err = drain(d);

		if (err)
			return err;
		r = PQprepare(d->c, s->name, s->sql, s->nparams, NULL);
		err = result_ok(d, d->c, r);
		PQclear(r);
		if (err)
			return err;
		s->prepared = d->generation;
	}
	if (PQpipelineStatus(d->c) == PQ_PIPELINE_OFF && !PQenterPipelineMode(d->c)) {
		set_err(d, PQerrorMessage(d->c));
		return -EIO;
	}
	if (!PQsendQueryPrepared(d->c, s->name, s->nparams, (const char *const *)s->values, NULL,
				 NULL, 0)) {
		set_err(d, PQerrorMessage(d->c));
		return -EIO;
	}
	/* A few hundred answers at most wait: neither side's socket buffer fills. */
	return ++d->queued >= 256 ? drain(d) : 0;
}

int db_pg__ensure(struct db *db)
{
	struct db_pg *d = pg(db);

	return reconnect(d, &d->c);
}

const char *db_pg__errmsg(struct db *db)
{
	return pg(db)->err;
}

/* 0 or -EIO with the error kept. */
static int result_ok(struct db_pg *d, PGconn *c, PGresult *r)
{
	ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;

	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
		const char *n = PQcmdTuples(r);

		d->changes = n && *n ? atoll(n) : 0;
		return 0;
	}
	set_err(d, r ? PQresultErrorMessage(r) : PQerrorMessage(c));
	return -EIO;
}

/*
 * Outside a transaction, a connection found lost (the server restarted since its last
 * use) is made again and the statement run once more: nothing of it was done.
 */
static bool idle(struct db_pg *d, PGconn **c)
{
	return c == &d->side || !d->in_tx;
}

static bool retry(struct db_pg *d, PGconn **c, bool was_idle, int *tries)
{
	return was_idle && (*tries)++ == 0 && (!*c || PQstatus(*c) != CONNECTION_OK) &&
	       !reconnect(d, c);
}

int db_pg__exec(struct db *db, const char *sql)
{
	struct db_pg *d = pg(db);
	bool was_idle = idle(d, &d->c);
	bool begin = !strncmp(sql, "BEGIN", 5), end = !strcmp(sql, "COMMIT") ||
						     !strcmp(sql, "ROLLBACK");
	int err, tries = 0;

	/* The writes sent before: a COMMIT fails with them. */
	err = drain(d);
	/* A transaction ends even on a connection lost: the next begins on a new one. */
	if (end)
		d->in_tx = false;
	if (err && !end)
		return err;
	if (err && !strcmp(sql, "COMMIT")) {
		PQclear(PQexec(d->c, "ROLLBACK"));
		return err;
	}
	do {
		PGresult *r;

		if (was_idle && reconnect(d, &d->c))
			return -EIO;
		if (!d->c || PQstatus(d->c) != CONNECTION_OK) {
			set_err(d, "the connection to the server is lost");
			return -EIO;
		}
		r = PQexec(d->c, sql);
		err = result_ok(d, d->c, r);
		/* A COMMIT of a transaction that failed says ROLLBACK, and is no error. */
		if (!err && !strcmp(sql, "COMMIT") && strcmp(PQcmdStatus(r), "COMMIT")) {
			set_err(d, "the transaction failed and was rolled back");
			err = -EIO;
		}
		PQclear(r);
	} while (err && retry(d, &d->c, was_idle, &tries));
	if (begin && !err)
		d->in_tx = true;
	if (end)
		d->in_tx = false;
	return err;
}

int64_t db_pg__changes(struct db *db)
{
	return pg(db)->changes;
}

bool db_pg__in_transaction(struct db *db)
{
	return pg(db)->in_tx;
}

/* ?N as $N, outside quoted text; the highest N. */
static char *translate(const char *sql, int *nparams)
{
	char *out = malloc(strlen(sql) + 1), *o = out;
	char quote = 0;

	*nparams = 0;
	if (!out)
		return NULL;
	for (const char *p = sql; *p; p++) {
		if (quote) {
			quote = *p == quote ? 0 : quote;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '?' && p[1] >= '0' && p[1] <= '9') {
			int n = atoi(p + 1);

			*nparams = n > *nparams ? n : *nparams;
			*o++ = '$';
			continue;
		}
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

struct db_stmt *db_pg__prepare(struct db *db, const char *sql, unsigned flags)
{
	struct db_pg *d = pg(db);
	struct db_stmt *s = calloc(1, sizeof(*s));

	if (!s || !(s->sql = translate(sql, &s->nparams)) ||
	    !(s->values = calloc(s->nparams + 1, sizeof(*s->values)))) {
		if (s)
			free(s->sql);
		free(s);
		set_err(d, "out of memory");
		return NULL;
	}
	s->db = db;
	s->flags = flags;
	snprintf(s->name, sizeof(s->name), "heaptap_%u", ++d->next_name);
	return s;
}

void db_pg__reset(struct db_stmt *s)
{
	PQclear(s->res);
	s->res = NULL;
	s->row = s->rows = 0;
}

void db_pg__clear_bindings(struct db_stmt *s)
{
	for (int i = 0; i < s->nparams; i++) {
		free(s->values[i]);
		s->values[i] = NULL;
	}
}

void db_pg__finalize(struct db_stmt *s)
{
	struct db_pg *d = pg(s->db);

	db_pg__reset(s);
	db_pg__clear_bindings(s);
	/* Prepared in this connection: forgotten by the server too. */
	if (s->prepared == d->generation && d->c && PQstatus(d->c) == CONNECTION_OK &&
	    !drain(d)) {
		char sql[64];

		snprintf(sql, sizeof(sql), "DEALLOCATE %s", s->name);
		PQclear(PQexec(d->c, sql));
	}
	free(s->values);
	free(s->sql);
	free(s);
}

static void bind(struct db_stmt *s, int i, char *text)
{
	if (i < 1 || i > s->nparams) {
		free(text);
		return;
	}
	free(s->values[i - 1]);
	s->values[i - 1] = text;
}

void db_pg__bind_int64(struct db_stmt *s, int i, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	bind(s, i, strdup(buf));
}

void db_pg__bind_double(struct db_stmt *s, int i, double v)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%.17g", v);
	bind(s, i, strdup(buf));
}

void db_pg__bind_text(struct db_stmt *s, int i, const char *text)
{
	bind(s, i, text ? strdup(text) : NULL);
}

static int run(struct db_stmt *s);

int db_pg__step(struct db_stmt *s)
{
	struct db_pg *d = pg(s->db);
	PGconn **c = s->flags & DB_OUTSIDE ? &d->side : &d->c;
	bool was_idle = idle(d, c);
	int rc, tries = 0;

	if (s->res)
		return ++s->row < s->rows ? DB_ROW : DB_DONE;
	if ((s->flags & DB_PIPELINE) && c == &d->c && d->in_tx) {
		if (!*c || PQstatus(*c) != CONNECTION_OK) {
			set_err(d, "the connection to the server is lost");
			return DB_ERROR;
		}
		return send_pipelined(d, s) ? DB_ERROR : DB_DONE;
	}
	if (c == &d->c && drain(d))
		return DB_ERROR;
	do {
		if (was_idle && reconnect(d, c))
			return DB_ERROR;
		rc = run(s);
	} while (rc == DB_ERROR && retry(d, c, was_idle, &tries));
	return rc;
}

static int run(struct db_stmt *s)
{
	struct db_pg *d = pg(s->db);
	bool outside = s->flags & DB_OUTSIDE;
	PGconn *c = outside ? d->side : d->c;
	if (!c || PQstatus(c) != CONNECTION_OK) {
		set_err(d, "the connection to the server is lost");
		return DB_ERROR;
	}
	if ((s->flags & DB_PERSISTENT) && !outside) {
		if (s->prepared != d->generation) {
			PGresult *r = PQprepare(c, s->name, s->sql, s->nparams, NULL);
			int err = result_ok(d, c, r);

			PQclear(r);
			if (err)
				return DB_ERROR;
			s->prepared = d->generation;
		}
		s->res = PQexecPrepared(c, s->name, s->nparams, (const char *const *)s->values,
					NULL, NULL, 0);
	} else {
		s->res = PQexecParams(c, s->sql, s->nparams, NULL, (const char *const *)s->values,
				      NULL, NULL, 0);
	}
	if (result_ok(d, c, s->res)) {
		PQclear(s->res);
		s->res = NULL;
		return DB_ERROR;
	}
	s->row = 0;
	s->rows = PQresultStatus(s->res) == PGRES_TUPLES_OK ? PQntuples(s->res) : 0;
	return s->rows ? DB_ROW : DB_DONE;
}

static const char *value(struct db_stmt *s, int i)
{
	if (!s->res || s->row >= s->rows || i >= PQnfields(s->res) ||
	    PQgetisnull(s->res, s->row, i))
		return NULL;
	return PQgetvalue(s->res, s->row, i);
}

bool db_pg__column_null(struct db_stmt *s, int i)
{
	return !value(s, i);
}

int64_t db_pg__column_int64(struct db_stmt *s, int i)
{
	const char *v = value(s, i);

	if (!v)
		return 0;
	if (!strcmp(v, "t") || !strcmp(v, "f")) /* booleans, as SQLite's 1 and 0 */
		return *v == 't';
	/* numeric (sum) or a REAL column read as an integer: truncated, as SQLite does */
	return strpbrk(v, ".eE") ? (int64_t)strtod(v, NULL) : strtoll(v, NULL, 10);
}

double db_pg__column_double(struct db_stmt *s, int i)
{
	const char *v = value(s, i);

	return v ? strtod(v, NULL) : 0;
}

const char *db_pg__column_text(struct db_stmt *s, int i)
{
	return value(s, i);
}

size_t db_pg__column_bytes(struct db_stmt *s, int i)
{
	const char *v = value(s, i);

	return v ? strlen(v) : 0;
}
