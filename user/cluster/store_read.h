/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Stored runs read back (heaptap report DB.sqlite, the collector's answers to top). */
#ifndef HEAPTAP_STORE_READ_H
#define HEAPTAP_STORE_READ_H

#include <stdbool.h>
#include <stdio.h>
#include "run_view.h"
#include <json-c/json.h>
#include "store.h"

/* Does the file at path begin as an SQLite database does? */
bool store_is_database(const char *path);
/* The stored runs, a line each: id, job, start, ranks, hosts, processes, command. */
int store__list_runs(struct store *st, FILE *out);
/*
 * Run id (0: the newest) into v: every process (process 0) or only that one; with
 * totals_only, each process's total without its groups. 0, -ENOENT (no such run), -EIO.
 */
int store__load_run(struct store *st, int64_t id, int64_t process, bool totals_only,
		    struct run_view *v);

/* A point of a stored process's series of totals. */
struct store_sample {
	double t; /* seconds since the run's start, to the millisecond */
	int64_t current, max;
};
/*
 * A stored process's series of totals, oldest first, t in seconds since since (its run's
 * start): *out (free it; never NULL on success) and *nr. 0, -ENOMEM or -EIO.
 */
int store__load_samples(struct store *st, int64_t process, double since,
			struct store_sample **out, size_t *nr);

#endif
