/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Prometheus metrics: a registry the collector fills as agents report, and a /metrics
 * endpoint (libmicrohttpd) that renders it in the text exposition format. Per process and
 * per library only: per-function figures stay in the database, out of label cardinality.
 */
#ifndef HEAPTAP_METRICS_H
#define HEAPTAP_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include "heaptap_types.h"

/* Thread-safe: the collector's threads update it while the server renders it. */
struct metrics;

struct metrics *metrics__new(void);
void metrics__free(struct metrics *m);
/* Leave out the collector's health families: an agent's endpoint serves its processes. */
void metrics__without_health(struct metrics *m);

/* A process's labels. Strings are copied; any bytes are fine (they are escaped). */
struct metrics_who {
	const char *job;
	const char *host;
	int rank; /* -1: not a rank */
	int pid;
};

/* A process's totals now: its series appear with the first call. */
void metrics__set_process(struct metrics *m, const struct metrics_who *who, int64_t current,
			  int64_t max, const uint64_t calls[HT_NR_FUNCS]);
/*
 * A library's current balance within a process. A process's first METRICS_MAX_LIBRARIES
 * libraries get a series each; the balance of any further ones is summed into one series
 * labelled library="(others)", so the series of a process always add up to its total.
 */
void metrics__set_library(struct metrics *m, const struct metrics_who *who, const char *library,
			  int64_t current);
/* Drop the process's series (and its libraries'). */
void metrics__forget_process(struct metrics *m, const struct metrics_who *who);

#define METRICS_MAX_LIBRARIES 64
#define METRICS_OTHER_LIBRARIES "(others)"

/* The collector's own health. */
enum metrics_counter {
	METRICS_MESSAGES,
	METRICS_BYTES,
	METRICS_REJECTED_CONNECTIONS,
	METRICS_DECODE_ERRORS,
	METRICS_AUTH_FAILURES,
	METRICS_NR_COUNTERS
};

void metrics__add(struct metrics *m, enum metrics_counter c, uint64_t n);
void metrics__set_agents_connected(struct metrics *m, unsigned int n);
/* One database transaction took this long (a histogram). */
void metrics__observe_db_write(struct metrics *m, double seconds);

/*
 * The text exposition format (version 0.0.4) of everything now, malloc'ed, its length in
 * *len; NULL when out of memory.
 */
char *metrics__render(struct metrics *m, size_t *len);

struct metrics_server;

/*
 * Serve GET /metrics on ADDR:PORT (IPv4, [IPv6] or a host name; port 0: any free port)
 * from a thread of its own. NULL (errno set) after saying why on one line.
 */
struct metrics_server *metrics_server__start(struct metrics *m, const char *listen);
/* The port it listens on (the one chosen, with port 0). */
int metrics_server__port(const struct metrics_server *srv);
/* Stop serving; accepts NULL. */
void metrics_server__stop(struct metrics_server *srv);

#endif
