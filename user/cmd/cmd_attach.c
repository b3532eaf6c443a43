// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap attach: trace running processes without stopping them. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "commands.h"
#include "discovery.h"
#include "log.h"
#include "privilege.h"

/* One line saying why pid cannot be traced, and heaptap's exit status for it. */
static int attach_error(pid_t pid, int err)
{
	switch (err) {
	case -ESRCH:
		log_error("no process with PID %d (has it exited?): check with ps -p %d", pid, pid);
		return EXIT_BAD_TARGET;
	case -EINVAL:
		log_error("PID %d is a kernel thread: it has no malloc to trace", pid);
		return EXIT_BAD_TARGET;
	case -ENOENT:
		log_error("PID %d maps no malloc heaptap can probe (a static program without "
			  "symbols?)", pid);
		return EXIT_BAD_TARGET;
	case -EPERM:
	case -EACCES:
		log_error("not allowed to trace PID %d: run heaptap as root", pid);
		return EXIT_NO_PRIVILEGE;
	default:
		log_error("cannot attach to PID %d: %s (heaptap -v shows why)", pid, strerror(-err));
		return EXIT_FAILURE_INTERNAL;
	}
}

/* Out of descriptors or memory: trace the others, and list this one. */
static bool is_resource_limit(int err)
{
	return err == -EMFILE || err == -ENFILE || err == -ENOMEM;
}

/*
 * Attach to one process the user may trace, checked first and pinned (a pidfd) until its
 * probes are placed, so that a pid reused meanwhile is never taken for it. 0 or -errno;
 * *refused with -EPERM.
 */
static int attach_one(struct session *s, pid_t pid, const char **refused)
{
	struct trace_permit permit = { .pidfd = -1 };
	int err = privilege_check(pid, &permit, refused);

	if (!err)
		err = session__attach(s, pid);
	if (!err && !privilege_still_same(&permit))
		err = -ESRCH; /* its pid named the process checked, then another */
	privilege_release(&permit);
	return err;
}

int attach_all(struct session *s, const pid_t *pids, size_t nr)
{
	int err;

	for (size_t i = 0; i < nr; i++) {
		const char *refused = NULL;

		err = attach_one(s, pids[i], &refused);
		if (err == -EPERM && refused) {
			log_error("not allowed to trace PID %d: %s", pids[i], refused);
			return EXIT_USAGE;
		}
		if (is_resource_limit(err))
			session__note_untraced(s, pids[i], strerror(-err));
		else if (err)
			return attach_error(pids[i], err);
	}
	if (session__problem(s)) {
		log_error("%s", session__problem(s));
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < nr; i++) {
		if (session__knows(s, pids[i]))
			log_info("attached to PID %d", pids[i]);
	}
	return EXIT_OK;
}

int cmd_attach(const struct options *opts)
{
	struct session *s = NULL;
	double deadline, rescan;
	struct outputs out;
	int status, err;

	/* Refuse before loading anything: attach_all checks again, and pins what it probes. */
	for (size_t i = 0; i < opts->nr_pids; i++) {
		const char *reason;

		if (may_trace(opts->pids[i], &reason) == -EPERM) {
			log_error("not allowed to trace PID %d: %s", opts->pids[i], reason);
			return EXIT_USAGE;
		}
	}
	status = open_outputs_and_session(opts, &out, &s);
	if (status != EXIT_OK)
		return status;
	status = attach_all(s, opts->pids, opts->nr_pids);
	if (status != EXIT_OK)
		goto cleanup;
	if (opts->mpi_only && (err = discovery_start(s))) {
		log_error("cannot watch for MPI ranks: %s", strerror(-err));
		status = EXIT_FAILURE_INTERNAL;
		goto cleanup;
	}
	if (opts->mpi_only)
		log_info("watching for MPI ranks");
	rescan = now() + 1;

	deadline = opts->duration > 0 ? now() + opts->duration : 0;
	/* With --mpi, more ranks may come: only a signal or -d ends the watch. */
	while (!stop_requested && (opts->mpi_only || session__live_targets(s) > 0)) {
		if (deadline && now() >= deadline)
			break;
		if (opts->mpi_only && now() >= rescan) {
			discovery_rescan(s);
			rescan = now() + 1;
		}
		err = session__poll(s, 50 /* ms */);
		if (err) {
			log_error("reading events failed: %s", strerror(-err));
			status = EXIT_FAILURE_INTERNAL;
			break;
		}
		if (session__problem(s)) {
			log_error("%s", session__problem(s));
			session__stop(s);
			status = EXIT_USAGE;
			goto cleanup;
		}
		/* A target may be gone without an exit event reaching us (a lost event). */
		for (size_t i = 0; i < opts->nr_pids; i++) {
			if (kill(opts->pids[i], 0) && errno == ESRCH)
				session__mark_exited(s, opts->pids[i], -1);
		}
	}
	session__stop(s);
	err = write_reports(s, &out, stdout);
	if (status == EXIT_OK)
		status = err;
cleanup:
	close_outputs_and_session(&out, s);
	return status;
}
