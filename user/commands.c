// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <string.h>
#include <time.h>
#include "commands.h"
#include "log.h"
#include "privilege.h"
#include "report.h"

volatile sig_atomic_t stop_requested;

int open_session(const struct options *opts, struct session **s)
{
	struct session_opts so = {
		.rule = opts->rule,
		.follow = opts->follow,
		.mpi_only = opts->mpi_only,
		.unwind_tables = !opts->frame_pointers,
		.record_stacks = opts->stacks_path != NULL,
	};
	int err = session__new(&so, s);

	if (!err) {
		privilege_setup_done();
		return EXIT_OK;
	}
	if (err == -EPERM || err == -EACCES) {
		log_error("loading BPF needs root, or CAP_BPF and CAP_PERFMON: run it with sudo");
		return EXIT_NO_PRIVILEGE;
	}
	log_error("cannot load the BPF programs: %s (heaptap -v shows why)", strerror(-err));
	return EXIT_FAILURE_INTERNAL;
}

int write_reports(struct session *s, const struct options *opts, FILE *default_out)
{
	FILE *out = default_out;
	int err, status = EXIT_OK;

	if (opts->text_path && !(out = fopen(opts->text_path, "w"))) {
		log_error("cannot write %s: %m", opts->text_path);
		status = EXIT_FAILURE_INTERNAL;
		out = default_out;
	}
	report_text(out, s);
	if (out != default_out)
		fclose(out);
	if (opts->json_path && (err = report_json(opts->json_path, s))) {
		log_error("cannot write %s: %s", opts->json_path, strerror(-err));
		status = EXIT_FAILURE_INTERNAL;
	}
	if (opts->stacks_path && (err = report_stacks(opts->stacks_path, s))) {
		log_error("cannot write %s: %s", opts->stacks_path, strerror(-err));
		status = EXIT_FAILURE_INTERNAL;
	}
	return status;
}

void request_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void catch_stop_signals(void (*handler)(int))
{
	/* No SA_RESTART: the signal must interrupt the poll. */
	struct sigaction sa = { .sa_handler = handler };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
