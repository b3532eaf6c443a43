// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap top: watch the targets live, full-screen or as a stream of snapshots. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "commands.h"
#include "discovery.h"
#include "log.h"
#include "report.h"
#include "top_view.h"

/* Whatever started the targets: a launched command, or processes attached to. */
struct watched {
	pid_t command; /* 0 when attached */
	char command_log[64]; /* where its output goes: the view owns the terminal */
	const pid_t *pids;
	size_t nr_pids;
	bool discover; /* --mpi: ranks may start at any time */
	double rescan;
};

static int start(struct session *s, const struct options *opts, struct watched *w)
{
	char path[PATH_MAX], image[PATH_MAX];
	int status, log_fd;

	if (!opts->command) {
		w->pids = opts->pids;
		w->nr_pids = opts->nr_pids;
		w->discover = opts->mpi_only;
		status = attach_all(s, opts->pids, opts->nr_pids);
		if (status == EXIT_OK && w->discover && discovery_start(s)) {
			log_error("cannot watch for MPI ranks");
			status = EXIT_FAILURE_INTERNAL;
		}
		return status;
	}
	status = resolve_command(opts->command[0], path, image, sizeof(path));
	if (status != EXIT_OK)
		return status;
	/* Its output would break the view, or the stream of snapshots: it goes to a file. */
	snprintf(w->command_log, sizeof(w->command_log), "%s/heaptap-top-%d.log",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", getpid());
	log_fd = open(w->command_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (log_fd < 0) {
		log_error("cannot create %s for the command's output: %m", w->command_log);
		return EXIT_USAGE;
	}
	log_info("the command's output goes to %s", w->command_log);
	status = launch_command(s, path, image, opts->command, log_fd, &w->command);
	close(log_fd);
	return status;
}

/* Notice targets gone without an exit event reaching us, and reap a launched command. */
static void check_exits(struct session *s, struct watched *w)
{
	if (w->discover && now() >= w->rescan) {
		discovery_rescan(s);
		w->rescan = now() + 1;
	}
	int wstatus;

	if (w->command > 0 && waitpid(w->command, &wstatus, WNOHANG) == w->command) {
		session__mark_exited(s, w->command, wstatus);
		w->command = -1;
	}
	for (size_t i = 0; i < w->nr_pids; i++) {
		if (kill(w->pids[i], 0) && errno == ESRCH)
			session__mark_exited(s, w->pids[i], -1);
	}
}

static void print_snapshot(struct session *s, const struct options *opts)
{
	if (opts->json_lines) {
		report_json_line(stdout, s);
	} else {
		report_text_processes(stdout, s);
		fputc('\n', stdout);
	}
}

int cmd_top(const struct options *opts)
{
	bool batch = opts->batch || !isatty(STDOUT_FILENO);
	struct top_view *view = NULL;
	struct watched w = {};
	struct session *s = NULL;
	struct outputs out;
	long refreshes = 0;
	double next;
	int status;

	/* --pprof, --folded: the only files top writes, opened before anything is touched. */
	status = open_outputs(opts, &out);
	if (status != EXIT_OK)
		return status;
	status = open_session(opts, &s);
	if (status != EXIT_OK)
		goto cleanup;
	catch_stop_signals(request_stop);
	status = start(s, opts, &w);
	if (status != EXIT_OK)
		goto cleanup;
	if (!batch && !(view = top_view__new(opts->interval))) {
		log_error("cannot start the full-screen view: try -b");
		status = EXIT_FAILURE_INTERNAL;
		goto cleanup;
	}

	next = now() + opts->interval;
	while (!stop_requested) {
		bool done;

		session__poll(s, 50 /* ms */);
		if (session__problem(s)) {
			status = EXIT_USAGE; /* said after the screen is restored */
			break;
		}
		check_exits(s, &w);
		if (view) {
			bool go_on;

			session__read_lock(s); /* a key may open a process: its accounts are read */
			go_on = top_view__keys(view, s);
			session__read_unlock(s);
			if (!go_on)
				break;
		}
		if (now() < next && !(view && top_view__wants_redraw(view)))
			continue;
		if (now() >= next) {
			next += opts->interval;
			refreshes++;
		}
		/* Batch mode ends by itself, after a snapshot taken once all have exited. */
		done = session__live_targets(s) == 0 && w.command <= 0 && !w.discover;
		/* The consumers go on delivering events: the accounts are read between batches. */
		session__read_lock(s);
		if (view)
			top_view__draw(view, s);
		else
			print_snapshot(s, opts);
		session__read_unlock(s);
		if ((opts->count && refreshes >= opts->count) || (batch && done))
			break;
	}
	top_view__free(view);
	if (session__problem(s))
		log_error("%s", session__problem(s));
	if ((out.pprof.f || out.folded.f) && write_session_exports(s, &out))
		status = EXIT_FAILURE_INTERNAL;
	if (w.command > 0)
		log_info("the command (PID %d) goes on untraced", w.command);
	if (w.command_log[0])
		log_info("the command's output is in %s", w.command_log);
cleanup:
	close_outputs(&out);
	session__free(s);
	return status;
}
