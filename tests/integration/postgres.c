// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <libpq-fe.h>
#include "driver.h"
#include "postgres.h"
#include "services.h"

#define PG_BIN "/usr/lib/postgresql/15/bin"
#define NOBODY 65534

/* argv run as nobody, output to log; with the test gone, the server shuts down fast. */
static pid_t spawn_as_nobody(char *const argv[], const char *log)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd < 0 || setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(126);
		/* After setuid, which clears it. */
		prctl(PR_SET_PDEATHSIG, SIGINT);
		if (getppid() != parent)
			_exit(1);
		dup2(fd, 1);
		dup2(fd, 2);
		setpgid(0, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static void make_cluster(struct pg_server *pg)
{
	char data[300];
	int status;

	/* The scratch directory is root's: nobody may pass through it to its own. */
	cr_assert(chmod(scratch_dir(), 0711) == 0, "chmod %s: %s", scratch_dir(), strerror(errno));
	cr_assert(mkdir(pg->dir, 0700) == 0 && chown(pg->dir, NOBODY, NOBODY) == 0,
		  "cannot make %s for PostgreSQL: %s", pg->dir, strerror(errno));
	snprintf(data, sizeof(data), "%s/data", pg->dir);
	status = wait_status(spawn_as_nobody((char *[]){ PG_BIN "/initdb", "-D", data, "-A",
							  "trust", "-U", "heaptap", "-E", "UTF8",
							  "--no-sync", NULL }, pg->log), 60);
	cr_assert(eq(int, status, 0), "PostgreSQL's initdb (" PG_BIN "/initdb, package "
		  "postgresql) failed: %s", slurp(pg->log));
}

void pg_start(struct pg_server *pg)
{
	char data[300], port[16], sql[64];
	PGconn *c = NULL;

	if (!pg->dir[0]) {
		scratch_file("postgresql", pg->dir, sizeof(pg->dir));
		snprintf(pg->log, sizeof(pg->log), "%s.log", pg->dir);
		make_cluster(pg);
		pg->port = free_local_port();
	}
	snprintf(data, sizeof(data), "%s/data", pg->dir);
	snprintf(port, sizeof(port), "%d", pg->port);
	/* Only loopback and the socket in the scratch directory: never another address. */
	pg->pid = spawn_as_nobody((char *[]){ PG_BIN "/postgres", "-D", data, "-h", "127.0.0.1",
					      "-k", pg->dir, "-p", port, "-c", "fsync=off",
					      NULL }, pg->log);
	snprintf(sql, sizeof(sql), "host=127.0.0.1 port=%d dbname=postgres user=heaptap",
		 pg->port);
	for (int tries = 0; tries < 300 && PQping(sql) != PQPING_OK; tries++) {
		int status;

		cr_assert(waitpid(pg->pid, &status, WNOHANG) == 0, "PostgreSQL did not start: %s",
			  slurp(pg->log));
		sleep_ms(50);
	}
	cr_assert(PQping(sql) == PQPING_OK, "PostgreSQL did not start in 15 s: %s", slurp(pg->log));
	snprintf(pg->url, sizeof(pg->url), "postgresql://heaptap@127.0.0.1:%d/heaptap", pg->port);
	c = PQconnectdb(sql);
	if (PQstatus(c) == CONNECTION_OK) /* exists already after a restart: no matter */
		PQclear(PQexec(c, "CREATE DATABASE heaptap"));
	cr_assert(PQstatus(c) == CONNECTION_OK, "cannot connect to PostgreSQL: %s",
		  PQerrorMessage(c));
	PQfinish(c);
}

void pg_exec(const struct pg_server *pg, const char *sql)
{
	PGconn *c = PQconnectdb(pg->url);
	PGresult *r = PQexec(c, sql);

	cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
		  "%s: %s", sql, PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
}

int pg_stop(struct pg_server *pg)
{
	kill(pg->pid, SIGINT);
	return wait_status(pg->pid, 30);
}
