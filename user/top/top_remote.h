/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* top --collector's view: a row per rank of a collector's run, and a rank opened. */
#ifndef HEAPTAP_TOP_REMOTE_H
#define HEAPTAP_TOP_REMOTE_H

#include "exit_status.h"
#include "report.h"

struct viewer;

/* Call rates between refreshes, per process (host and pid). */
struct top_rate;
struct top_rates {
	struct top_rate *rates;
	double last;
};

void top_rates__update(struct top_rates *r, const struct report_run *run);
void top_rates__of(struct top_rates *r, const char *host, const struct target *t,
		   double *alloc_rate, double *free_rate);
void top_rates__free(struct top_rates *r);
uint64_t top_total_calls(const struct balance *b);

/*
 * The full-screen view of run run_id (0: the newest), read again every interval seconds,
 * until q or a signal. heaptap's exit status.
 */
int top_remote_screen(struct viewer *v, long run_id, double interval);

#endif
