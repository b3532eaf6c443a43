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
#include "cmd_agent.h"
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
static void describe(const struct trace_options *opts, char *buf, size_t size)
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

static int start(struct session *s, const struct trace_options *opts, pid_t *pid)
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
static bool done(struct session *s, const struct trace_options *opts, pid_t pid,
		 int *wstatus)
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

static int cmd_agent(const void *options)
{
	static struct auth_key key; /* 4 KiB: not on the stack */
	const struct agent_options *opts = options;
	const struct trace_options *t = &opts->trace;
	char description[512];
	struct agent_opts ao = {
		.collector = opts->collector,
		.key = &key,
		.munge = { opts->cred.munge, opts->cred.munge_socket },
		.buffer_limit = opts->buffer_limit,
		.rule = t->rule,
		.description = description,
	};
	struct session *s = NULL;
	struct agent *a = NULL;
	struct metrics *m = NULL;
	struct metrics_server *srv = NULL;
	int status, wstatus = 0;
	pid_t pid = 0;
	double next;

	status = setup_tracing();
	if (status != EXIT_OK)
		return status;
	if (opts->cred.key_path && auth_key_load(opts->cred.key_path, &key))
		return EXIT_USAGE;
	/* Said now, in one line, rather than at every connection. */
	if (opts->cred.munge && munge_cred_probe(&ao.munge)) {
		auth_key_wipe(&key);
		return EXIT_USAGE;
	}
	describe(t, description, sizeof(description));
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
	status = open_session(t, false, true, &s);
	if (status != EXIT_OK)
		goto cleanup;
	catch_stop_signals(forward_signal);
	status = start(s, t, &pid);
	if (status != EXIT_OK)
		goto cleanup;
	child = pid;
	agent__pump(a);
	next = now() + t->interval;
	while (!done(s, t, pid, &wstatus)) {
		int err = session__poll(s, 50 /* ms */);

		if (err)
			log_error("reading events failed: %s", strerror(-err));
		if (session__problem(s)) {
			log_error("%s", session__problem(s));
			status = EXIT_USAGE;
			break;
		}
		agent__pump(a);
		if (t->mpi_only && !t->command && now() >= next)
			discovery_rescan(s);
		if (now() >= next) {
			/* The consumers go on delivering events: the accounts are read between batches. */
			session__read_lock(s);
			agent__snapshot(a, s, false);
			if (m)
				agent_metrics__update(m, s, agent__host(a));
			session__read_unlock(s);
			agent__pump(a);
			next += t->interval;
			if (next < now())
				next = now() + t->interval;
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

/* agent's own options without a short form. */
enum { OPT_COLLECTOR = CLI_OWN_KEYS, OPT_BUFFER, OPT_METRICS };

static const struct argp_option options[] = {
	{ "collector", OPT_COLLECTOR, "HOST:PORT", 0, "the collector to send to" },
	CLI_OPTION_KEY("the collector was given"),
	CLI_OPTIONS_MUNGE("prove to a collect --munge who runs this agent with a MUNGE "
			  "credential (as root: the collector accepts root or its own user)"),
	{ "interval", 'i', "SECONDS", 0, "send what changed every SECONDS (default 1)" },
	{ "pid", 'p', "PID[,PID...]", 0, "trace these running processes" },
	{ "mpi", CLI_OPT_MPI, NULL, 0, "every MPI rank on this node, as they start (with a "
				       "COMMAND: its processes that have a rank)" },
	{ "follow", CLI_OPT_FOLLOW, NULL, 0, "trace COMMAND and every process it starts" },
	{ "buffer", OPT_BUFFER, "SIZE", 0, "keep up to SIZE bytes of updates the collector has "
					   "not acknowledged (default 64M; K, M, G)" },
	CLI_OPTION_ATTRIBUTION,
	CLI_OPTION_UNWIND,
	CLI_OPTION_CONSUMERS,
	{ "metrics", OPT_METRICS, "ADDR:PORT", 0, "also serve the traced processes' figures "
						  "at http://ADDR:PORT/metrics (Prometheus)" },
	CLI_OPTION_LIVE_BLOCKS,
	CLI_OPTION_SAMPLE_BYTES("512K"),
	CLI_OPTION_ALLOCATOR,
	{},
};

static int check(const struct cli_command *sub, struct agent_options *o)
{
	const struct trace_options *t = &o->trace;
	int sources = !!t->nr_pids + !!t->command + (t->mpi_only && !t->command);

	if (!o->collector)
		return cli_usage_error(sub, "%s", "agent needs --collector HOST:PORT");
	if (sources != 1)
		return cli_usage_error(sub, "%s", "agent traces one of: --mpi, -p PID..., or "
					     "[--follow|--mpi] -- COMMAND");
	if (t->follow && !t->mpi_only && !t->command)
		return cli_usage_error(sub, "%s", "--follow goes with a COMMAND");
	if (!o->buffer_limit)
		o->buffer_limit = 64u << 20;
	return 0;
}

static error_t parse(struct cli_state *c, int key, char *arg)
{
	struct agent_options *o = c->opts;
	error_t err;

	switch (key) {
	case ARGP_KEY_INIT:
		cli_trace_defaults(&o->trace);
		o->trace.sample_bytes = CLI_AGENT_SAMPLE_BYTES;
		return 0;
	case OPT_COLLECTOR:
		o->collector = arg;
		return cli_check_endpoint(c, "--collector", arg);
	case OPT_METRICS:
		o->metrics_listen = arg;
		return cli_check_endpoint(c, "--metrics", arg);
	case OPT_BUFFER:
		if (budget_size_parse(arg, strlen(arg), 1ull << 40, &o->buffer_limit) ||
		    o->buffer_limit < 4096)
			return cli_usage_error(c->sub, "--buffer wants a size of 4K or more, "
					       "such as 64M, not '%s'", arg);
		return 0;
	case ARGP_KEY_ARG:
		return cli_take_command(c, &o->trace.command);
	case ARGP_KEY_END:
		return check(c->sub, o);
	}
	err = cli_parse_trace(c, &o->trace, key, arg);
	return err == ARGP_ERR_UNKNOWN ? cli_parse_credentials(c, &o->cred, key, arg) : err;
}

static void free_options(void *opts)
{
	struct agent_options *o = opts;

	cli_trace_free(&o->trace);
}

const struct cli_command agent_command = {
	.name = "agent",
	.summary = "trace like run or attach, and stream what changes to a collector",
	.man_section = 8,
	.options = options,
	.args_doc = "--collector HOST:PORT --mpi\n--collector HOST:PORT -p PID[,PID...]\n"
		    "--collector HOST:PORT [--follow|--mpi] [--] COMMAND [ARG...]",
	.doc = "Trace like run (with a COMMAND) or attach (-p, --mpi), and every -i seconds "
	       "send each traced process's changes to the collector, and a final report when "
	       "it ends. With a COMMAND it exits with COMMAND's status once the collector has "
	       "acknowledged everything (or after waiting 15 s, saying what was not "
	       "delivered); otherwise it runs until Ctrl-C or SIGTERM (-p: or until the "
	       "processes exit). While the collector is unreachable it keeps tracing and "
	       "buffering (--buffer, 64M by default), reconnecting with backoff.\vOne agent "
	       "per rank: mpirun -np N heaptap agent --collector X -- ./app. One per node: "
	       "heaptap agent --collector X --mpi -- mpirun ... or srun --ntasks-per-node=1 "
	       "--overlap heaptap agent --collector X --mpi.",
	.command_follows = true,
	.opts_size = sizeof(struct agent_options),
	.parse = parse,
	.free = free_options,
	.run = cmd_agent,
};
