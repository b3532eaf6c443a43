// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Many collectors, one PostgreSQL database: the test's own server (postgres.c). A 3-rank
 * Open MPI job whose ranks report to two collectors is one run whose ranks equal what
 * each recorded of itself; the server restarted and a collector killed (SIGKILL) while
 * the agents stream lose and double nothing; a server that refuses connections is said in
 * one line; an SQLite database copied in by store-migrate reports the same; a round of
 * hundreds of processes, written many rows to a statement, is stored exact; a commit that
 * takes longer than --client-timeout cuts no agent off.
 */
#include <dirent.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "cluster.h"
#include "db.h"
#include "driver.h"
#include "gtchild_report.h"
#include "postgres.h"
#include "services.h"
#include "store.h"

TestSuite(cluster_pg, .timeout = 240);

#define RANKS 3

/* One app context of mpirun: n ranks, each with an agent reporting to c. */
static int app(char **argv, int argc, const char *n, const struct collector_proc *c,
	       const char *target, const char *go)
{
	const char *words[] = { "-np", n, heaptap_path(), "agent", "--sample-bytes", "0",
			 "--collector", c->endpoint,
				"-i", "0.2", "--", target, "--truth-dir", scratch_dir() };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		argv[argc++] = (char *)words[i];
	if (go) {
		argv[argc++] = "--hold";
		argv[argc++] = (char *)go;
	}
	return argc;
}

/*
 * mpirun of RANKS ranks: ranks 0 and 1 report to a, rank 2 to b (one job, one job id);
 * with go, they hold their memory until it exists.
 */
static pid_t start_job(const struct collector_proc *a, const struct collector_proc *b,
		       const char *go, char *err, size_t err_size)
{
	char target[512];
	char *argv[48] = { "mpirun", "--allow-run-as-root", "--oversubscribe" };
	int argc = 3;

	target_path("mpi_workers", target, sizeof(target));
	argc = app(argv, argc, "2", a, target, go);
	argv[argc++] = ":";
	argc = app(argv, argc, "1", b, target, go);
	argv[argc] = NULL;
	return spawn(argv, NULL, scratch_file("mpirun.err", err, err_size));
}

/* One run of RANKS exited ranks, each equal to its truth; nothing stored twice. */
static void assert_one_exact_run(const char *url)
{
	json_object *report = stored_report(url, 0), *processes = get(report, "processes");

	cr_assert(eq(int, json_object_array_length(processes), RANKS), "%s",
		  json_object_to_json_string(report));
	for (int rank = 0; rank < RANKS; rank++) {
		json_object *p = process_of_rank(report, rank);

		cr_assert(p != NULL, "no rank %d", rank);
		cr_expect(eq(str, (char *)json_object_get_string(get(p, "status")), "exited"));
		cr_expect(eq(i64, json_object_get_int64(get(p, "dropped_messages")), 0));
	}
	assert_ranks_match_truth(report, RANKS, scratch_dir(), "truth");
	json_object_put(report);
	cr_expect(eq(i64, db_integer(url, "SELECT count(*) FROM runs"), 1), "one run");
	cr_expect(eq(i64, db_integer(url, "SELECT count(*) FROM processes"), RANKS));
	cr_expect(eq(i64, db_integer(url, "SELECT count(*) FROM agents"), RANKS));
	cr_expect(eq(i64, db_integer(url, "SELECT count(*) FROM (SELECT 1 FROM samples "
					  "GROUP BY process, t HAVING count(*) > 1) x"), 0),
		  "a batch was stored twice");
	cr_expect(eq(i64, db_integer(url, "SELECT count(*) FROM (SELECT 1 FROM names "
					  "GROUP BY text HAVING count(*) > 1) x"), 0));
}

Test(cluster_pg, two_collectors_one_job)
{
	struct pg_server pg = { 0 };
	struct collector_proc a, b;
	char err[256];

	require_bpf();
	pg_start(&pg);
	collector_start(&a, pg.url, 0, NULL);
	collector_start(&b, pg.url, 0, NULL);
	cr_assert(eq(int, wait_status(start_job(&a, &b, NULL, err, sizeof(err)), 120), 0),
		  "mpirun: %s", slurp(err));
	/* Each collector's live view is the whole job: the ranks the other stored too. */
	for (int i = 0; i < 2; i++) {
		char top[256];
		char *argv[] = { (char *)heaptap_path(), "top", "--collector",
				 i ? b.endpoint : a.endpoint, "-b", "--json", "-n", "1", NULL };
		json_object *view;

		cr_expect(eq(int, wait_status(spawn(argv, scratch_file("top.json", top, sizeof(top)),
						    scratch_file("top.err", err, sizeof(err))), 30),
			     0), "top --collector: %s", slurp(err));
		view = json_object_from_file(top);
		cr_assert(view != NULL, "top --collector wrote no JSON: %s", slurp(err));
		cr_expect(eq(int, json_object_array_length(get(view, "processes")), RANKS),
			  "collector %d's view: %s", i, json_object_to_json_string(view));
		json_object_put(view);
	}
	cr_expect(eq(int, collector_stop(&a, SIGTERM), 0), "%s", slurp(a.err));
	cr_expect(eq(int, collector_stop(&b, SIGTERM), 0), "%s", slurp(b.err));
	cr_expect(eq(i64, db_integer(pg.url, "SELECT count(DISTINCT host) FROM processes"), 1));
	/* Each rank's user, as the ranks run as this test's. */
	{
		char sql[256];
		struct passwd *pw = getpwuid(getuid());

		cr_assert(pw != NULL);
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM processes WHERE uid = %u AND "
			 "user_name = '%s'", (unsigned)getuid(), pw->pw_name);
		cr_expect(eq(i64, db_integer(pg.url, sql), RANKS), "%s", sql);
	}
	assert_one_exact_run(pg.url);
	/* A database of a newer schema: refused in one line, by a collector and by report. */
	pg_exec(&pg, "UPDATE heaptap_schema SET version = version + 1");
	for (int i = 0; i < 2; i++) {
		char *argv[] = { (char *)heaptap_path(), i ? "report" : "collect", "--db", pg.url,
				 "--listen", "127.0.0.1:0", NULL };
		char *log;
		int status;

		if (i) { /* report DB --list */
			argv[2] = pg.url;
			argv[3] = "--list";
			argv[4] = NULL;
		}
		status = wait_status(spawn(argv, NULL, scratch_file("newer.err", err, sizeof(err))),
				     30);
		log = slurp(err);
		cr_expect(status != 0 && lines_with(log, "heaptap:", NULL) == 1 &&
				  strstr(log, "newer than this heaptap's") != NULL,
			  "%s: status %d: %s", argv[1], status, log);
		free(log);
	}
	cr_expect(eq(i64, db_integer(pg.url, "SELECT count(*) FROM runs"), 1), "left as it was");
	pg_stop(&pg);
}

Test(cluster_pg, server_restarted_and_collector_killed)
{
	struct pg_server pg = { 0 };
	struct collector_proc a, b, again;
	char err[256], go[256];
	pid_t mpirun;

	require_bpf();
	pg_start(&pg);
	collector_start(&a, pg.url, 0, (const char *const[]){ "--commit-every", "0.5", NULL });
	collector_start(&b, pg.url, 0, (const char *const[]){ "--commit-every", "0.5", NULL });
	scratch_file("go", go, sizeof(go));
	mpirun = start_job(&a, &b, go, err, sizeof(err));
	cr_assert(ranks_hold(RANKS, mpirun), "the ranks did not get to hold their memory: %s",
		  slurp(err));
	for (int tries = 0; tries < 500 && db_integer(pg.url, "SELECT count(*) FROM processes "
							      "WHERE rank IS NOT NULL") < RANKS;
	     tries++)
		sleep_ms(20);
	sleep_ms(700);
	/* The server goes (fast shutdown) while the agents stream, and comes back. */
	cr_assert(eq(int, pg_stop(&pg), 0), "PostgreSQL's fast shutdown: %s", slurp(pg.log));
	sleep_ms(1500);
	pg_start(&pg);
	sleep_ms(1500);
	/* A collector killed while its agents stream, and started again. */
	cr_expect(eq(int, collector_stop(&b, SIGKILL), 128 + SIGKILL));
	/* The ranks free everything and exit: the agents keep what was not acknowledged. */
	cr_assert(fclose(fopen(go, "w")) == 0);
	sleep_ms(1000);
	collector_start(&again, pg.url, b.port, NULL);
	cr_assert(eq(int, wait_status(mpirun, 120), 0), "mpirun: %s", slurp(err));
	cr_expect(eq(int, collector_stop(&a, SIGTERM), 0), "%s", slurp(a.err));
	cr_expect(eq(int, collector_stop(&again, SIGTERM), 0), "%s", slurp(again.err));
	assert_one_exact_run(pg.url);
	pg_stop(&pg);
}

Test(cluster_pg, a_server_refusing_connections_is_said_in_one_line)
{
	char url[128], err[256], *log;
	int status;

	snprintf(url, sizeof(url), "postgresql://heaptap@127.0.0.1:%d/heaptap", free_local_port());
	{
		char *argv[] = { (char *)heaptap_path(), "collect", "--listen", "127.0.0.1:0",
				 "--db", url, NULL };

		status = wait_status(spawn(argv, NULL, scratch_file("collect.err", err,
									 sizeof(err))), 30);
	}
	cr_expect(status != 0, "exit status %d", status);
	log = slurp(err);
	cr_expect(eq(int, lines_with(log, "heaptap:", NULL), 1), "%s", log);
	cr_expect(strstr(log, "Connection refused") != NULL, "%s", log);
	cr_expect(strstr(log, "collecting on") == NULL, "%s", log);
	free(log);
}

/* heaptap report DB ARGS... (run run) into out; its exit status. */
static int report_to(const char *db, long run, const char *what, const char *out)
{
	char run_text[16], err[256];
	char *argv[16] = { (char *)heaptap_path(), "report", (char *)db, "--run", run_text };
	int argc = 5;

	snprintf(run_text, sizeof(run_text), "%ld", run);
	if (!strcmp(what, "full")) {
		argv[argc++] = "--full";
		argv[argc++] = "--json";
		argv[argc++] = (char *)out;
		argv[argc++] = "-o";
		argv[argc++] = "/dev/null";
	} else if (!strcmp(what, "html")) {
		argv[argc++] = "--html";
		argv[argc++] = (char *)out;
	} else if (!strcmp(what, "json")) {
		argv[argc++] = "--json";
		argv[argc++] = (char *)out;
	}
	argv[argc] = NULL;
	return wait_status(spawn(argv, !strcmp(what, "text") ? out : "/dev/null",
				 scratch_file("report.err", err, sizeof(err))), 60);
}

/* text with each name replaced by "DB" (the HTML page's title names its database). */
static char *without(char *text, const char *name)
{
	char *at;

	while (text && (at = strstr(text, name))) {
		memcpy(at, "DB", 2);
		memmove(at + 2, at + strlen(name), strlen(at + strlen(name)) + 1);
	}
	return text;
}

Test(cluster_pg, store_migrate_reports_the_same)
{
	static const char *const forms[] = { "text", "json", "full", "html" };
	struct pg_server pg = { 0 };
	struct collector_proc c;
	char db[256], target[512], err[256], out[256], *log;
	int status;

	require_bpf();
	/* Two runs in SQLite: an agent each, no job id. */
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, NULL);
	for (int i = 0; i < 2; i++) {
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint, "-i",
				 "0.2", "--", (char *)target_path("groundtruth", target,
								  sizeof(target)), NULL };

		cr_assert(eq(int, wait_status(spawn(argv, NULL, scratch_file("agent.err", err,
										sizeof(err))), 60),
			     0), "agent: %s", slurp(err));
	}
	cr_assert(eq(int, collector_stop(&c, SIGTERM), 0), "%s", slurp(c.err));
	cr_assert(eq(i64, db_integer(db, "SELECT count(*) FROM runs"), 2));
	pg_start(&pg);
	for (int pass = 0; pass < 2; pass++) {
		char *argv[] = { (char *)heaptap_path(), "store-migrate", db, pg.url, NULL };

		status = wait_status(spawn(argv, scratch_file("migrate.out", out, sizeof(out)),
					   scratch_file("migrate.err", err, sizeof(err))), 60);
		cr_assert(eq(int, status, 0), "store-migrate: %s", slurp(err));
		log = slurp(out);
		/* Again: nothing copied twice. */
		cr_expect(strstr(log, pass ? "0 runs copied, 2 there already"
					   : "2 runs copied, 0 there already") != NULL, "%s", log);
		free(log);
	}
	cr_expect(eq(i64, db_integer(pg.url, "SELECT count(*) FROM runs"), 2));
	cr_expect(eq(i64, db_integer(pg.url, "SELECT count(*) FROM samples"),
		     db_integer(db, "SELECT count(*) FROM samples")));
	cr_expect(eq(i64, db_integer(pg.url, "SELECT count(*) FROM processes WHERE user_name IS "
					     "NOT NULL"),
		     db_integer(db, "SELECT count(*) FROM processes WHERE user_name IS NOT NULL")),
		  "each process's user copied");
	for (long run = 1; run <= 2; run++) {
		for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
			char a[256], b[256];
			char *from, *to;

			snprintf(out, sizeof(out), "sqlite-%ld.%s", run, forms[f]);
			scratch_file(out, a, sizeof(a));
			snprintf(out, sizeof(out), "pg-%ld.%s", run, forms[f]);
			scratch_file(out, b, sizeof(b));
			cr_assert(eq(int, report_to(db, run, forms[f], a), 0));
			cr_assert(eq(int, report_to(pg.url, run, forms[f], b), 0), "%s",
				  slurp(err));
			from = without(slurp(a), db);
			to = without(slurp(b), pg.url);
			cr_assert(from && to && strlen(from) > 100, "run %ld %s", run, forms[f]);
			cr_expect(eq(str, from, to), "run %ld's %s report differs", run, forms[f]);
			free(from);
			free(to);
		}
	}
	pg_stop(&pg);
}

struct second_writer {
	struct store *st;
	int64_t agent;
	const Heaptap__Batch *b;
	bool applied;
	int err;
	double waited;
};

/* The same batch through another collector's store, while the first holds its round. */
static void *write_again(void *arg)
{
	struct second_writer *w = arg;
	double t0 = now_s();

	w->err = store__begin(w->st) ||
		 store__apply_batch(w->st, w->agent, "node", w->b, &w->applied, NULL, NULL) ||
		 store__commit(w->st);
	w->waited = now_s() - t0;
	return NULL;
}

Test(cluster_pg, a_batch_through_two_collectors_is_stored_once)
{
	struct pg_server pg = { 0 };
	Heaptap__Balance total = HEAPTAP__BALANCE__INIT;
	Heaptap__Identity who = HEAPTAP__IDENTITY__INIT;
	Heaptap__Process p = HEAPTAP__PROCESS__INIT, *procs[] = { &p };
	Heaptap__Batch b = HEAPTAP__BATCH__INIT;
	struct store_agent a1, a2;
	struct store *first, *second;
	struct second_writer w = { 0 };
	pthread_t thread;
	bool applied;

	pg_start(&pg);
	total.has_current = total.has_max = true;
	total.current = 4096;
	total.max = 8192;
	who.has_pid = true;
	who.pid = 42;
	who.job = "job-1";
	p.has_key = true;
	p.key = 1;
	p.identity = &who;
	p.total = &total;
	b.has_seq = b.has_time = true;
	b.seq = 1;
	b.time = 1000;
	b.n_processes = 1;
	b.processes = procs;
	cr_assert(eq(int, store__open(pg.url, false, &first), 0));
	cr_assert(eq(int, store__open(pg.url, false, &second), 0));
	/* One agent (one uid) that sent its batch to one collector, then to another. */
	cr_assert(eq(int, store__agent_hello(first, 0xabc, "node", "app", 1, "entry", 1, &a1), 0));
	cr_assert(eq(int, store__agent_hello(second, 0xabc, "node", "app", 1, "entry", 1, &a2), 0));
	cr_assert(eq(i64, a1.id, a2.id), "one agent, one row");
	cr_assert(eq(int, store__begin(first), 0));
	cr_assert(eq(int, store__apply_batch(first, a1.id, "node", &b, &applied, NULL, NULL), 0));
	cr_assert(applied);
	w = (struct second_writer){ .st = second, .agent = a2.id, .b = &b };
	cr_assert(eq(int, pthread_create(&thread, NULL, write_again, &w), 0));
	sleep_ms(500); /* the second waits on the agent's row */
	cr_assert(eq(int, store__commit(first), 0));
	pthread_join(thread, NULL);
	cr_expect(eq(int, w.err, 0));
	cr_expect(w.applied == false, "the second collector stored the batch again");
	cr_expect(w.waited >= 0.4, "the second did not wait for the first's commit (%.2f s)",
		  w.waited);
	cr_expect(eq(i64, db_integer(pg.url, "SELECT count(*) FROM samples"), 1));
	cr_expect(eq(i64, db_integer(pg.url, "SELECT count(*) FROM processes"), 1));
	cr_expect(eq(i64, db_integer(pg.url, "SELECT max FROM groups WHERE kind = 0"), 8192));
	store__close(first);
	store__close(second);
	pg_stop(&pg);
}

/*
 * Each process whose truth is in dir (truth-PID.json) stored exact in url's run, unless the
 * agent said it could not trace it, or its stored record says heaptap saw it only in part
 * (a hold that ran out on a loaded machine, events lost): nothing lost without a word. How
 * many were stored exact.
 */
static size_t expect_truths_stored(const char *url, const char *dir, const char *agent_log)
{
	json_object *report = stored_report(url, 0);
	char *log = slurp(agent_log);
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t stored = 0;

	cr_assert(d != NULL);
	while ((e = readdir(d))) {
		char path[1024], untraced[64], sql[256];
		int pid = atoi(e->d_name + 6);

		if (strncmp(e->d_name, "truth-", 6))
			continue;
		snprintf(untraced, sizeof(untraced), "PID %d ", pid);
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM processes WHERE pid = %d AND "
			 "holds_skipped + lost_events > 0", pid);
		if (lines_with(log, untraced, "not traced") || db_integer(url, sql) > 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		expect_exact(report, path, "a stored process");
		stored++;
	}
	closedir(d);
	free(log);
	json_object_put(report);
	return stored;
}

/*
 * agent --follow (a batch every 0.2 s, to c) of a launcher that starts count gtchild
 * processes, batch at a time, each after `pause` seconds when given, each writing its truth
 * into the scratch directory `truths` (its path in truths_dir). The agent's pid; its log
 * in err.
 */
static pid_t follow_children(const struct collector_proc *c, int count, const char *batch,
			     const char *pause, char *truths_dir, size_t truths_size, char *err,
			     size_t err_size)
{
	char spawner[512], gtchild[512], n[8], child[1200];
	char *argv[24] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
			 "--collector", (char *)c->endpoint,
			   "-i", "0.2", "--follow", "--", spawner, "--count", n, "--batch",
			   (char *)batch, "--" };
	int argc = 16;

	target_path("spawner", spawner, sizeof(spawner));
	target_path("gtchild", gtchild, sizeof(gtchild));
	scratch_subdir("truths", truths_dir, truths_size);
	snprintf(n, sizeof(n), "%d", count);
	if (pause) {
		snprintf(child, sizeof(child), "sleep %s; exec %s --blocks 3 --truth-dir %s", pause,
			 gtchild, truths_dir);
		argv[argc++] = "/bin/sh";
		argv[argc++] = "-c";
		argv[argc++] = child;
	} else {
		const char *direct[] = { gtchild, "--blocks", "3", "--truth-dir", truths_dir };

		for (size_t i = 0; i < sizeof(direct) / sizeof(direct[0]); i++)
			argv[argc++] = (char *)direct[i];
	}
	argv[argc] = NULL;
	return spawn(argv, NULL, scratch_file("agent.err", err, err_size));
}

#define MANY 300

/*
 * One round of MANY short-lived processes (under --follow, the agent's last batch ends the
 * round): more changed groups and samples than a statement carries, so most are written
 * many rows at once, in the database's key order. Each process is stored equal to the truth
 * it wrote itself (or said untraced by the agent); each sample once, the newest equal to the
 * process's total.
 */
Test(cluster_pg, a_round_of_many_processes_is_stored_exact)
{
	const char *commit_every[] = { "--commit-every", "600", NULL };
	char truths[512], err[256];
	struct pg_server pg = { 0 };
	struct collector_proc c;

	require_bpf();
	pg_start(&pg);
	collector_start(&c, pg.url, 0, commit_every);
	cr_assert(eq(int, wait_status(follow_children(&c, MANY, "3", NULL, truths, sizeof(truths),
						      err, sizeof(err)),
				      120), 0), "agent: %s", slurp(err));
	cr_assert(eq(int, collector_stop(&c, SIGTERM), 0), "%s", slurp(c.err));
	cr_expect(gt(sz, expect_truths_stored(pg.url, truths, err), MANY * 9 / 10),
		  "processes stored");
	cr_expect(gt(i64, db_integer(pg.url, "SELECT count(*) FROM samples"), 256),
		  "more samples than one statement carries");
	cr_expect(eq(i64, db_integer(pg.url, "SELECT count(*) FROM (SELECT 1 FROM samples "
					      "GROUP BY process, t HAVING count(*) > 1) x"), 0),
		  "a sample stored twice");
	/* Each process's newest sample is its total's figures. */
	cr_expect(eq(i64, db_integer(pg.url, "SELECT count(*) FROM processes p JOIN groups g ON "
					      "g.process = p.id AND g.kind = 0 WHERE NOT EXISTS "
					      "(SELECT 1 FROM samples s WHERE s.process = p.id AND "
					      "s.current = g.current AND s.max = g.max AND s.t = "
					      "(SELECT max(t) FROM samples WHERE process = p.id))"), 0));
	pg_stop(&pg);
}

#define SLOW 40

/*
 * A round's commit held up (another session locks the samples table) for over twice
 * --client-timeout while an agent streams (SLOW processes started one after another): the
 * collector reads nothing meanwhile, and that time is its own, not the agent's silence. No
 * connection is closed, and every process is stored exact once the lock goes.
 */
Test(cluster_pg, a_slow_commit_cuts_no_agent_off)
{
	const char *opts[] = { "--commit-every", "0.5", "--client-timeout", "3", NULL };
	char truths[512], err[256], *log;
	struct pg_server pg = { 0 };
	struct collector_proc c;
	struct db *locker;
	pid_t agent;

	require_bpf();
	pg_start(&pg);
	collector_start(&c, pg.url, 0, opts);
	/* A process every 0.3 s for 12 s and more: every round has samples to write. */
	agent = follow_children(&c, SLOW, "1", "0.3", truths, sizeof(truths), err, sizeof(err));
	for (int tries = 0; tries < 500 && db_integer(pg.url, "SELECT count(*) FROM samples") < 1;
	     tries++)
		sleep_ms(20);
	cr_assert(eq(int, db__open(pg.url, false, &locker), 0));
	cr_assert(eq(int, db__exec(locker, "BEGIN; LOCK TABLE samples IN EXCLUSIVE MODE"), 0),
		  "%s", db__errmsg(locker));
	sleep_ms(7000); /* the collector's next commit waits on the lock */
	cr_assert(eq(int, db__exec(locker, "COMMIT"), 0));
	db__close(locker);
	cr_assert(eq(int, wait_status(agent, 60), 0), "agent: %s", slurp(err));
	cr_assert(eq(int, collector_stop(&c, SIGTERM), 0), "%s", slurp(c.err));
	log = slurp(c.err);
	cr_expect(strstr(log, "silent for") == NULL && strstr(log, "slow client") == NULL,
		  "the collector cut the agent off for its own commit: %s", log);
	free(log);
	log = slurp(err);
	cr_expect(eq(int, lines_with(log, "collector", NULL), 0), "the agent lost its collector: %s",
		  log);
	free(log);
	cr_expect(gt(sz, expect_truths_stored(pg.url, truths, err), SLOW / 2), "processes stored");
	pg_stop(&pg);
}
