// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap top --collector: a run a collector stores, live, a row per rank. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "auth.h"
#include "cmd_top.h"
#include "commands.h"
#include "log.h"
#include "top_remote.h"
#include "viewer.h"

/* A text snapshot: a row per process (rank order), as top's table shows them. */
static void print_rows(FILE *out, const struct report_run *run, struct top_rates *rates)
{
	fprintf(out, "run %" PRId64 "%s%s: %zu processes\n", run->id, run->job ? ", job " : "",
		run->job ? run->job : "", run->nr);
	fprintf(out, "%-20s %5s %8s %12s %12s %12s %12s %10s %10s %12s  %s\n", "HOST", "RANK",
		"PID", "CURRENT", "MAX", "HELD", "PEAK", "ALLOC/s", "FREE/s", "CALLS", "STATE");
	for (size_t i = 0; i < run->nr; i++) {
		const struct target *t = run->targets[i];
		const struct process_facts *pf = &run->facts[i];
		double alloc_rate, free_rate;
		char rank[16] = "-", held[24] = "-", peak[24] = "-";

		top_rates__of(rates, pf->host, t, &alloc_rate, &free_rate);
		if (t->mpi.rank >= 0)
			snprintf(rank, sizeof(rank), "%d", t->mpi.rank);
		if (pf->held_known) { /* the owner's totals: bytes still held, and at the peak */
			snprintf(held, sizeof(held), "%" PRIu64, pf->held_bytes);
			snprintf(peak, sizeof(peak), "%" PRIu64, pf->held_peak_bytes);
		}
		fprintf(out, "%-20.20s %5s %8d %12" PRId64 " %12" PRId64 " %12s %12s %10.0f %10.0f "
			     "%12" PRIu64 "  %s\n", pf->host, rank, t->pid, t->stats.total.current,
			t->stats.total.max, held, peak, alloc_rate, free_rate,
			top_total_calls(&t->stats.total),
			t->oom.killed ? "OOM-killed" : pf->state ? pf->state :
			t->exited ? "exited" : "running");
	}
	fputc('\n', out);
	fflush(out);
}

int cmd_top_collector(const struct top_options *opts)
{
	static struct auth_key key;
	const struct munge_opts munge = { opts->cred.munge, opts->cred.munge_socket };
	bool batch = opts->batch || !isatty(STDOUT_FILENO);
	struct top_rates rates = {};
	struct viewer *v = NULL;
	struct run_view view = {};
	long refreshes = 0;
	int status = EXIT_OK, err;

	if (opts->cred.key_path && auth_key_load(opts->cred.key_path, &key))
		return EXIT_USAGE;
	if (viewer__connect(opts->collector, &key, &munge, &v)) {
		auth_key_wipe(&key);
		return EXIT_FAILURE_INTERNAL;
	}
	catch_stop_signals(request_stop);
	if (!batch) {
		status = top_remote_screen(v, opts->run_id, opts->trace.interval);
		goto cleanup;
	}
	while (!stop_requested) {
		struct report_run run;

		/* JSON is the report: every process whole. The table needs only totals. */
		err = viewer__query(v, opts->run_id, 0, opts->json_lines, &view);
		if (err == -ENOENT) {
			log_error("collector %s has no run %s", opts->collector,
				  opts->run_id ? "of that id" : "yet");
		} else if (err) {
			status = EXIT_FAILURE_INTERNAL;
			break;
		} else if (!run_view__report(&view, &run)) {
			top_rates__update(&rates, &run);
			if (opts->json_lines)
				report_json_run(stdout, &run, true);
			else
				print_rows(stdout, &run, &rates);
		}
		run_view__clear(&view);
		if (opts->count && ++refreshes >= opts->count)
			break;
		usleep((useconds_t)(opts->trace.interval * 1e6));
	}
cleanup:
	run_view__clear(&view);
	top_rates__free(&rates);
	viewer__free(v);
	auth_key_wipe(&key);
	return status;
}
