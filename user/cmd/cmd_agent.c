// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap agent: trace like run or attach, and stream what changes to a collector. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "agent.h"
#include "agent_metrics.h"
#include "commands.h"
#include "discovery.h"
#include "log.h"

/* How long an agent whose work is done waits for the collector's acknowledgements. */
#define DRAIN_SECONDS 15

static volatile pid_t child;

static void forward_signal(int sig)
{
	if (child > 0)
		kill(child, sig);
	else
		stop_requested = 1;
}

/* What the collector calls this agent's run when its processes have no job id. */
static void describe(const struct options *opts, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	if (opts->command) {
		for (char **arg = opts->command; *arg && used < size; arg++)
			used += snprintf(buf + used, size - used, "%s%s", used ? " " : "", *arg);
	} else if (opts->nr_pids) {
		used = snprintf(buf, size, "-p ");
		for (size_t i = 0; i < opts->nr_pids && used < size; i++)
			used += snprintf(buf + used, size - used, "%s%d", i ? "," : "",
					 opts->pids[i]);
	} else {
		snprintf(buf, size, "--mpi");
	}
}

static int start(struct session *s, const struct options *opts, pid_t *pid)
{
	char path[PATH_MAX], image[PATH_MAX];
	int status;

	if (opts->command) {
		status = resolve_command(opts->command[0], path, image, sizeof(path));
		if (status == EXIT_OK)
			status = launch_command(s, path, image, opts->command, -1, pid);
		return status;
	}
	status = attach_all(s, opts->pids, opts->nr_pids);
	if (status == EXIT_OK && opts->mpi_only) {
		int err = discovery_start(s);

		if (err) {
			log_error("cannot watch for MPI ranks: %s", strerror(-err));
			return EXIT_FAILURE_INTERNAL;
		}
		log_info("watching for MPI ranks");
	}
	return status;
}

/* Has the work ended: the command, or (-p) every process, or a signal? */
static bool done(struct session *s, const struct options *opts, pid_t pid, int *wstatus)
{
	if (pid > 0) {
		if (waitpid(pid, wstatus, WNOHANG) != pid)
			return false;
		session__mark_exited(s, pid, *wstatus);
		/* Processes it started may outlive it a moment (--follow): let them finish. */
		for (int waits = 0; waits < 40 && session__live_targets(s) > 0; waits++)
			session__poll(s, 50 /* ms */);
		return true;
	}
	for (size_t i = 0; i < opts->nr_pids; i++) {
		if (kill(opts->pids[i], 0) && errno == ESRCH)
			session__mark_exited(s, opts->pids[i], -1);
	}
	return stop_requested || (!opts->mpi_only && session__live_targets(s) == 0);
}

/* Final reports out, acknowledged within DRAIN_SECONDS, else one line on what is not. */
static void drain(struct agent *a, struct session *s, const char *collector)
{
	double deadline = now() + DRAIN_SECONDS;
	size_t batches, bytes, dropped;

	agent__snapshot(a, s, true /* the live ones are left: detached */);
	while (!agent__drained(a) && now() < deadline)
		agent__wait(a, 50 /* ms */);
	agent__undelivered(a, &batches, &bytes, &dropped);
	if (batches)
		log_error("not delivered to collector %s: %zu batches (%zu bytes) it did not "
			  "acknowledge within %d s%s", collector, batches, bytes, DRAIN_SECONDS,
			  dropped ? ", besides those dropped while it was away" : "");
	else if (dropped)
		log_error("%zu batches were dropped while collector %s was away (buffer full): "
			  "the stored balances are whole, their time series have gaps", dropped,
			  collector);
	agent__goodbye(a);
}

int cmd_agent(const struct options *opts)
{
	static struct auth_key key; /* 4 KiB: not on the stack */
	char description[512];
	struct agent_opts ao = {
		.collector = opts->collector,
		.key = &key,
		.munge = { opts->munge, opts->munge_socket },
		.buffer_limit = opts->buffer_limit,
		.rule = opts->rule,
		.description = description,
	};
	struct session *s = NULL;
	struct agent *a = NULL;
	struct metrics *m = NULL;
	struct metrics_server *srv = NULL;
	int status, wstatus = 0;
	pid_t pid = 0;
	double next;

	if (opts->key_path && auth_key_load(opts->key_path, &key))
		return EXIT_USAGE;
	/* Said now, in one line, rather than at every connection. */
	if (opts->munge && munge_cred_probe(&ao.munge)) {
		auth_key_wipe(&key);
		return EXIT_USAGE;
	}
	describe(opts, description, sizeof(description));
	if (agent__new(&ao, &a)) {
		log_error("cannot start the agent: out of memory or random bytes");
		return EXIT_FAILURE_INTERNAL;
	}
	if (opts->metrics_listen) {
		m = metrics__new();
		if (!m) {
			log_error("cannot start the metrics: out of memory");
			status = EXIT_FAILURE_INTERNAL;
			goto cleanup;
		}
		metrics__without_health(m);
		srv = metrics_server__start(m, opts->metrics_listen);
		if (!srv) {
			status = EXIT_USAGE; /* the server said why */
			goto cleanup;
		}
	}
	status = open_session(opts, &s);
	if (status != EXIT_OK)
		goto cleanup;
	catch_stop_signals(forward_signal);
	status = start(s, opts, &pid);
	if (status != EXIT_OK)
		goto cleanup;
	child = pid;
	agent__pump(a);
	next = now() + opts->interval;
	while (!done(s, opts, pid, &wstatus)) {
		int err = session__poll(s, 50 /* ms */);

		if (err)
			log_error("reading events failed: %s", strerror(-err));
		if (session__problem(s)) {
			log_error("%s", session__problem(s));
			status = EXIT_USAGE;
			break;
		}
		agent__pump(a);
		if (opts->mpi_only && !opts->command && now() >= next)
			discovery_rescan(s);
		if (now() >= next) {
			/* The consumers go on delivering events: the accounts are read between batches. */
			session__read_lock(s);
			agent__snapshot(a, s, false);
			if (m)
				agent_metrics__update(m, s, agent__host(a));
			session__read_unlock(s);
			agent__pump(a);
			next += opts->interval;
			if (next < now())
				next = now() + opts->interval;
		}
	}
	session__stop(s);
	drain(a, s, opts->collector);
	if (pid > 0 && status == EXIT_OK)
		status = command_status(wstatus);
cleanup:
	child = 0;
	metrics_server__stop(srv);
	metrics__free(m);
	session__free(s);
	agent__free(a);
	auth_key_wipe(&key);
	return status;
}
