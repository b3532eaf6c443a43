// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The text report of run and attach, the answer first: each process's summary
 * (report_summary.c), then its tables (report_tables.c); the processes heaptap could not
 * trace; with -v what unwinding and naming cost. An MPI job's text is the summary across
 * its ranks; its ranks' own sections go to --json, or before it with --full. --dmatp
 * prints DMATP's layout instead (report_dmatp.c).
 */
#include <errno.h>
#include <string.h>
#include "log.h"
#include "report.h"

/* An MPI job: --mpi, or several ranks among the processes --follow traced. */
static bool is_job(struct target **targets, size_t n, const struct text_opts *o)
{
	size_t ranks = 0;

	for (size_t i = 0; i < n; i++)
		ranks += targets[i]->mpi.rank >= 0 && !targets[i]->exec;
	return ranks >= 2 || (o->mpi && ranks);
}

void report_text(FILE *out, struct session *s, const struct text_opts *o)
{
	struct target **targets;
	size_t n = session__targets(s, &targets);
	bool job = is_job(targets, n, o);
	int err;

	if (o->dmatp) {
		report_dmatp(out, s);
		return;
	}
	fprintf(out, "heaptap report (attribution: %s)\n", attribution_rule_name(session__rule(s)));
	for (size_t i = 0; i < n && (!job || o->full); i++) {
		struct process_facts pf = {
			.lost_events = session__lost_events(s, targets[i]),
			.holds_skipped = session__holds_skipped(s, targets[i]),
			.lost_ring_full = session__kernel_losses(s, targets[i]).ringbuf_full,
		};

		report_summary_text(out, targets[i], &pf, o);
		report_tables_text(out, targets[i], &pf, o);
	}
	report_untraced_text(out, s);
	if (o->verbose) {
		report_unwind_tables_text(out, s);
		report_symbols_text(out, s);
	}
	if (job) {
		if (!o->full)
			fprintf(out, "Each rank's own report: --full, or the JSON report "
				     "(--json)\n");
		if ((err = report_job_text(out, s)))
			log_error("cannot sum up the job across its ranks: %s", strerror(-err));
	}
	fflush(out);
}
