// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "cluster.h"
#include "db.h"
#include "driver.h"

void collector_start(struct collector_proc *c, const char *db, int port,
		     const char *const extra[])
{
	char listen[64], name[64], *text, *line;
	char *argv[32] = { (char *)heaptap_path(), "collect", "--listen", listen, "--db",
			   (char *)db };
	int argc = 6;
	static int started;

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	for (int i = 0; extra && extra[i] && argc < 31; i++)
		argv[argc++] = (char *)extra[i];
	argv[argc] = NULL;
	snprintf(c->db, sizeof(c->db), "%s", db);
	snprintf(name, sizeof(name), "collector-%d.err", started++);
	scratch_file(name, c->err, sizeof(c->err));
	c->pid = spawn(argv, NULL, c->err);
	cr_assert(wait_for_text_while(c->err, "collecting on 127.0.0.1:", c->pid, 30),
		  "the collector did not start: %s", slurp(c->err));
	text = slurp(c->err);
	line = strstr(text, "collecting on 127.0.0.1:");
	c->port = atoi(line + strlen("collecting on 127.0.0.1:"));
	free(text);
	cr_assert(c->port > 0 && (port == 0 || c->port == port), "port %d", c->port);
	snprintf(c->endpoint, sizeof(c->endpoint), "127.0.0.1:%d", c->port);
}

int collector_stop(struct collector_proc *c, int sig)
{
	kill(c->pid, sig);
	return wait_status(c->pid, 20);
}

json_object *stored_report(const char *db, long run)
{
	char json[256], err[256], run_text[32];
	char *argv[] = { (char *)heaptap_path(), "report", (char *)db, "--full", "--json", json,
			 "-o", "/dev/null", run ? "--run" : NULL, run_text, NULL };
	int status;

	snprintf(run_text, sizeof(run_text), "%ld", run);
	scratch_file("stored.json", json, sizeof(json));
	status = wait_status(spawn(argv, NULL, scratch_file("report.err", err, sizeof(err))), 60);
	cr_assert(eq(int, status, 0), "heaptap report: %s", slurp(err));
	return load_json(json);
}

json_object *process_of_rank(json_object *report, int rank)
{
	return find_by_int(get(report, "processes"), "rank", rank);
}

void assert_ranks_match_truth(json_object *report, int ranks, const char *dir,
			      const char *prefix)
{
	for (int rank = 0; rank < ranks; rank++) {
		json_object *process = process_of_rank(report, rank), *truth;
		char path[512], what[64];

		cr_assert(process != NULL, "rank %d is not in the stored run", rank);
		snprintf(path, sizeof(path), "%s/%s-%d.json", dir, prefix, rank);
		truth = load_json(path);
		snprintf(what, sizeof(what), "rank %d", rank);
		cr_expect(json_object_get_int(get(process, "pid")) ==
				  json_object_get_int(get(truth, "pid")),
			  "%s: stored pid %d, truth %d", what,
			  json_object_get_int(get(process, "pid")),
			  json_object_get_int(get(truth, "pid")));
		cr_expect(json_object_get_string(get(process, "host"))[0] != '\0');
		assert_threads(get(process, "threads"), get(truth, "threads"), what);
		assert_libgt_functions(get(process, "functions"), get(truth, "entry_functions"),
				       what);
		json_object_put(truth);
	}
}

long long db_integer(const char *db, const char *sql)
{
	struct db *h;
	struct db_stmt *s;
	long long v = -1;

	cr_assert(db__open(db, true, &h) == 0, "cannot open %s", db);
	s = db__prepare(h, sql, 0);
	cr_assert(s != NULL, "%s: %s", sql, db__errmsg(h));
	if (db_step(s) == DB_ROW)
		v = db_column_int64(s, 0);
	db_stmt__finalize(s);
	db__close(h);
	return v;
}

bool db_intact(const char *db)
{
	struct db *h;
	struct db_stmt *s;
	bool ok = false;

	cr_assert(db__open(db, true, &h) == 0, "cannot open %s", db);
	/* A server checks its own pages; an SQLite file is checked here. */
	s = db__prepare(h, db__kind(h) == DB_SQLITE ? "PRAGMA integrity_check"
						     : "SELECT 'ok' FROM heaptap_schema", 0);
	if (s && db_step(s) == DB_ROW)
		ok = !strcmp(db_column_text(s, 0), "ok");
	db_stmt__finalize(s);
	db__close(h);
	return ok;
}

int announced_metrics_port(const char *err, pid_t pid)
{
	const char *announce = "heaptap: metrics on 127.0.0.1:";
	char *text, *line;
	int port;

	cr_assert(wait_for_text_while(err, announce, pid, 30),
		  "it never said where its metrics are: %s", slurp(err));
	text = slurp(err);
	line = strstr(text, announce);
	port = atoi(line + strlen(announce));
	free(text);
	return port;
}

int collector_metrics_port(const struct collector_proc *c)
{
	return announced_metrics_port(c->err, c->pid);
}

bool ranks_hold(int ranks, pid_t job)
{
	for (int tries = 0; tries < 6000; tries++) {
		int held = 0;

		for (int rank = 0; rank < ranks; rank++) {
			char name[64], path[256];

			snprintf(name, sizeof(name), "held-%d.json", rank);
			held += access(scratch_file(name, path, sizeof(path)), F_OK) == 0;
		}
		if (held == ranks)
			return true;
		if (kill(job, 0))
			return false;
		sleep_ms(20);
	}
	return false;
}
