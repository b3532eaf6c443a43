/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The cluster tests' side: a collector on a free loopback port, its database read back. */
#ifndef HEAPTAP_TEST_CLUSTER_H
#define HEAPTAP_TEST_CLUSTER_H

#include <stdbool.h>
#include <sys/types.h>
#include <json-c/json.h>

struct collector_proc {
	pid_t pid;
	int port;
	char db[256], err[256];
	char endpoint[64]; /* 127.0.0.1:PORT */
};

/*
 * Start heaptap collect on 127.0.0.1 (port: 0 for a free one, or the one it had before)
 * storing into db, with extra options (NULL-terminated); wait for its "collecting on"
 * line. Fails the test if it does not come.
 */
void collector_start(struct collector_proc *c, const char *db, int port,
		     const char *const extra[]);
/* The metrics port it announced ("metrics on 127.0.0.1:PORT", with --metrics). */
int collector_metrics_port(const struct collector_proc *c);
/* The same for any heaptap (pid) writing its standard error to err. */
int announced_metrics_port(const char *err, pid_t pid);
/*
 * Wait until each of ranks wrote held-<rank>.json in the scratch directory (its truth while
 * it holds memory); false once job is gone or after two minutes.
 */
bool ranks_hold(int ranks, pid_t job);
/* SIGTERM (or SIGKILL) it and reap it; its exit status. */
int collector_stop(struct collector_proc *c, int sig);

/* heaptap report DB --json: the stored run (0: the newest), parsed. */
json_object *stored_report(const char *db, long run);
/* The process of the report with that rank (NULL if none). */
json_object *process_of_rank(json_object *report, int rank);
/* Assert that each rank's stored figures equal DIR/<prefix>-<rank>.json exactly. */
void assert_ranks_match_truth(json_object *report, int ranks, const char *dir,
			      const char *prefix);
/* One row of SQL on db: its first column as an integer (-1 if none). */
long long db_integer(const char *db, const char *sql);
/* PRAGMA integrity_check says ok. */
bool db_intact(const char *db);

#endif
