// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap attach: trace running processes without stopping them. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmd_attach.h"
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

static int cmd_attach(const void *options)
{
	const struct attach_options *o = options;
	const struct trace_options *t = &o->trace;
	struct session *s = NULL;
	double deadline, rescan;
	struct outputs out;
	int status, err;

	status = setup_tracing();
	if (status != EXIT_OK)
		return status;
	/* Refuse before loading anything: attach_all checks again, and pins what it probes. */
	for (size_t i = 0; i < t->nr_pids; i++) {
		const char *reason;

		if (may_trace(t->pids[i], &reason) == -EPERM) {
			log_error("not allowed to trace PID %d: %s", t->pids[i], reason);
			return EXIT_USAGE;
		}
	}
	status = open_outputs_and_session(&o->out, t, true, &out, &s);
	if (status != EXIT_OK)
		return status;
	status = attach_all(s, t->pids, t->nr_pids);
	if (status != EXIT_OK)
		goto cleanup;
	if (t->mpi_only && (err = discovery_start(s))) {
		log_error("cannot watch for MPI ranks: %s", strerror(-err));
		status = EXIT_FAILURE_INTERNAL;
		goto cleanup;
	}
	if (t->mpi_only)
		log_info("watching for MPI ranks");
	rescan = now() + 1;

	deadline = o->duration > 0 ? now() + o->duration : 0;
	/* With --mpi, more ranks may come: only a signal or -d ends the watch. */
	while (!stop_requested && (t->mpi_only || session__live_targets(s) > 0)) {
		if (deadline && now() >= deadline)
			break;
		if (t->mpi_only && now() >= rescan) {
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
		for (size_t i = 0; i < t->nr_pids; i++) {
			if (kill(t->pids[i], 0) && errno == ESRCH)
				session__mark_exited(s, t->pids[i], -1);
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

static const struct argp_option options[] = {
	{ "pid", 'p', "PID[,PID...]", 0, "the processes to trace (the option may be repeated)" },
	{ "mpi", CLI_OPT_MPI, NULL, 0, "every MPI rank on this node, and every rank that starts "
				       "while heaptap runs" },
	{ "duration", 'd', "SECONDS", 0, "detach after SECONDS" },
	CLI_OPTION_ATTRIBUTION,
	CLI_OPTION_JSON_FILE,
	{ "output", 'o', "FILE", 0, "write the text report to FILE instead of standard output" },
	CLI_OPTION_STACKS,
	CLI_OPTIONS_EXPORTS,
	CLI_OPTIONS_TREE,
	CLI_OPTIONS_TEXT_LAYOUT,
	CLI_OPTION_UNWIND,
	CLI_OPTION_CONSUMERS,
	CLI_OPTIONS_BUDGETS,
	CLI_OPTION_LIVE_BLOCKS,
	CLI_OPTION_SAMPLE_BYTES("0"),
	CLI_OPTION_ALLOCATOR,
	CLI_OPTION_SAMPLE_INTERVAL,
	CLI_OPTION_SITE_DEPTH,
	{},
};

static error_t parse(struct cli_state *c, int key, char *arg)
{
	struct attach_options *o = c->opts;
	error_t err;

	switch (key) {
	case ARGP_KEY_INIT:
		cli_trace_defaults(&o->trace);
		cli_outputs_defaults(&o->out);
		return 0;
	case 'd':
		/* 0.001 s: a duration that rounds to nothing is a typo, not a request. */
		return cli_parse_seconds(c, "-d", arg, 0.001, &o->duration);
	case ARGP_KEY_END:
		if (!o->trace.nr_pids && !o->trace.mpi_only)
			return cli_usage_error(c->sub, "%s", "attach needs -p PID or --mpi");
		return cli_check_outputs(c->sub, &o->out);
	}
	err = cli_parse_trace(c, &o->trace, key, arg);
	return err == ARGP_ERR_UNKNOWN ? cli_parse_outputs(c, &o->out, key, arg) : err;
}

static void free_options(void *opts)
{
	struct attach_options *o = opts;

	cli_trace_free(&o->trace);
}

const struct cli_command attach_command = {
	.name = "attach",
	.summary = "trace running processes until Ctrl-C, SIGTERM, -d, or they all exit",
	.man_section = 8,
	.options = options,
	.args_doc = "-p PID[,PID...]\n--mpi",
	.doc = "Trace running processes until Ctrl-C, SIGTERM, -d SECONDS, or until they all "
	       "exit (with --mpi: until Ctrl-C, SIGTERM or -d). The report goes to standard "
	       "output. Once the probes are live heaptap prints 'heaptap: attached to PID "
	       "<pid>' on standard error.\v" CLI_REPORT_FILES_DOC,
	.opts_size = sizeof(struct attach_options),
	.parse = parse,
	.free = free_options,
	.run = cmd_attach,
};
