/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A PostgreSQL server of the test's own: initdb and postgres from Debian's postgresql
 * package, run as user nobody, listening on 127.0.0.1 on a free port and on a socket in
 * the scratch directory, and stopped by the test.
 */
#ifndef HEAPTAP_TEST_POSTGRES_H
#define HEAPTAP_TEST_POSTGRES_H

#include <sys/types.h>

struct pg_server {
	pid_t pid;
	int port;
	char dir[256], log[300];
	char url[128]; /* postgresql://heaptap@127.0.0.1:PORT/heaptap */
};

/* Make the cluster (first time) and start it; fails the test in one line if it cannot. */
void pg_start(struct pg_server *pg);
/* Run sql on the test's database as its owner; fails the test if it fails. */
void pg_exec(const struct pg_server *pg, const char *sql);
/* Fast shutdown (SIGINT): clients cut off, what was committed kept. Its exit status. */
int pg_stop(struct pg_server *pg);

#endif
