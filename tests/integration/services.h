/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Servers a test starts for real (Prometheus, the collector, Slurm's daemons): on
 * 127.0.0.1 only, gone with the test, and asked over HTTP with curl.
 */
#ifndef HEAPTAP_TEST_SERVICES_H
#define HEAPTAP_TEST_SERVICES_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * spawn() for a server: it gets SIGTERM if the test process dies first, so that a failed
 * or timed-out test leaves no server behind.
 */
pid_t spawn_service(char *const argv[], const char *out, const char *err);
/* SIGTERM, then SIGKILL after timeout_s: its exit status as wait_status() gives it. */
int stop_service(pid_t pid, int timeout_s);
/* A TCP port on 127.0.0.1 that nobody listens on now (another may take it before use). */
int free_local_port(void);
/*
 * GET url (with the query parameter name=value URL-encoded when name is not NULL) into
 * file: 0 for a 2xx answer, else curl's exit status (7: nobody listens, 22: HTTP error).
 */
int http_get(const char *url, const char *name, const char *value, const char *file);
/* The program is on PATH (for one-line failures that say which package is missing). */
bool have_program(const char *name);

#endif
