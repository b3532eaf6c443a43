/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The registry behind struct metrics, shared by its keeper and its renderer. */
#ifndef HEAPTAP_METRICS_INTERNAL_H
#define HEAPTAP_METRICS_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <uthash.h>
#include "metrics.h"

struct metrics_library {
	UT_hash_handle hh;
	int64_t current;
	char *label; /* the name as a label value, escaped once */
	char name[];
};

struct metrics_process {
	UT_hash_handle hh;
	char *key; /* job, host, rank and pid, length-prefixed: no two processes share one */
	char *labels; /* job, host, rank and pid as the exposition writes them, escaped once */
	bool has_totals;
	int64_t current, max;
	uint64_t calls[HT_NR_FUNCS];
	/* In the order first seen (uthash keeps it): the first ones get series of their own. */
	struct metrics_library *libraries;
	unsigned int nr_libraries;
};

/* Upper bounds of the database write histogram, in seconds; +Inf follows. */
#define METRICS_DB_BUCKETS                                                                   \
	{ 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, \
	  2.5, 5, 10 }
#define METRICS_NR_DB_BUCKETS 16

struct metrics {
	pthread_mutex_t lock;
	struct metrics_process *processes;
	uint64_t counters[METRICS_NR_COUNTERS];
	unsigned int agents_connected;
	bool without_health; /* an agent's: no collector families */
	/* Not cumulative here: observations with bound[i-1] < seconds <= bound[i]. */
	uint64_t db_buckets[METRICS_NR_DB_BUCKETS + 1];
	uint64_t db_count;
	double db_sum;
};

extern const double metrics_db_bounds[METRICS_NR_DB_BUCKETS];

/* value as a label value between its quotes (malloc'ed), or NULL when out of memory. */
char *metrics_label_value(const char *value);
/* A process's labels, without braces (malloc'ed), or NULL when out of memory. */
char *metrics_process_labels(const struct metrics_who *who);

#endif
