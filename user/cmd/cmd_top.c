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
#include "cmd_top.h"
#include "commands.h"
#include "discovery.h"
#include "log.h"
#include "report.h"
#include "top_rows.h"
#include "top_view.h"

/* top's own options without a short form. */
enum { OPT_JSON_LINES = CLI_OWN_KEYS, OPT_COLLECTOR, OPT_RUN };

/* Whatever started the targets: a launched command, or processes attached to. */
struct watched {
	pid_t command; /* 0 when attached */
	char command_log[64]; /* where its output goes: the view owns the terminal */
	const pid_t *pids;
	size_t nr_pids;
	bool discover; /* --mpi: ranks may start at any time */
	double rescan;
};

static int start(struct session *s, const struct trace_options *opts, struct watched *w)
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

/* A snapshot: a JSON report on one line, every process's whole text report, or a row each. */
static void print_snapshot(struct session *s, const struct top_options *opts,
			   struct top_rows *rows)
{
	if (opts->json_lines) {
		report_json_line(stdout, s);
	} else if (opts->out.full) {
		report_text_processes(stdout, s);
		fputc('\n', stdout);
	} else {
		top_rows__print(rows, stdout, s);
	}
}

static int cmd_top(const void *options)
{
	const struct top_options *opts = options;
	bool batch = opts->batch || !isatty(STDOUT_FILENO);
	struct top_view *view = NULL;
	struct top_rows *rows = NULL;
	struct watched w = {};
	struct session *s = NULL;
	struct outputs out;
	long refreshes = 0;
	double next;
	int status;

	if (opts->collector) { /* it reads no process of this machine */
		status = setup_privileges();
		return status != EXIT_OK ? status : cmd_top_collector(opts);
	}
	status = setup_tracing();
	if (status != EXIT_OK)
		return status;
	/* --pprof, --folded: the only files top writes, opened before anything is touched. */
	status = open_outputs_and_session(&opts->out, &opts->trace, false, &out, &s);
	if (status != EXIT_OK)
		return status;
	status = start(s, &opts->trace, &w);
	if (status != EXIT_OK)
		goto cleanup;
	if (!batch && !(view = top_view__new(opts->trace.interval))) {
		log_error("cannot start the full-screen view: try -b");
		status = EXIT_FAILURE_INTERNAL;
		goto cleanup;
	}
	if (batch && !(rows = top_rows__new())) {
		status = EXIT_FAILURE_INTERNAL;
		goto cleanup;
	}

	next = now() + opts->trace.interval;
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
			next += opts->trace.interval;
			refreshes++;
		}
		/* Batch mode ends by itself, after a snapshot taken once all have exited. */
		done = session__live_targets(s) == 0 && w.command <= 0 && !w.discover;
		/* The consumers go on delivering events: the accounts are read between batches. */
		session__read_lock(s);
		if (view)
			top_view__draw(view, s);
		else
			print_snapshot(s, opts, rows);
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
	top_rows__free(rows);
	close_outputs_and_session(&out, s);
	return status;
}

/* top's --json is a flag: its snapshots go to standard output. */
static const struct argp_option options[] = {
	{ "pid", 'p', "PID[,PID...]", 0, "the processes to watch" },
	{ "mpi", CLI_OPT_MPI, NULL, 0, "every MPI rank on this node, as they start (with a "
				       "COMMAND: like --follow, but only processes with a rank)" },
	{ "follow", CLI_OPT_FOLLOW, NULL, 0, "watch COMMAND and every process it starts" },
	{ "batch", 'b', NULL, 0, "print a snapshot per refresh, a row per process, instead of "
				 "a full screen (also when standard output is not a terminal)" },
	{ "json", OPT_JSON_LINES, NULL, 0, "batch: each snapshot as one JSON report on one "
					   "line" },
	{ "full", CLI_OPT_FULL, NULL, 0, "batch: each snapshot as every process's whole text "
					 "report instead of a row each" },
	{ "interval", 'i', "SECONDS", 0, "refresh every SECONDS (default 1)" },
	{ "iterations", 'n', "COUNT", 0, "quit after COUNT refreshes" },
	CLI_OPTIONS_EXPORTS,
	CLI_OPTION_ATTRIBUTION,
	CLI_OPTION_UNWIND,
	CLI_OPTION_CONSUMERS,
	CLI_OPTIONS_BUDGETS,
	CLI_OPTION_LIVE_BLOCKS,
	CLI_OPTION_SAMPLE_BYTES("0"),
	CLI_OPTION_ALLOCATOR,
	{ "collector", OPT_COLLECTOR, "HOST:PORT", 0, "watch the newest run a collector "
						      "stores, a row per rank" },
	{ "run", OPT_RUN, "ID", 0, "with --collector: that run instead of the newest" },
	{ "key", CLI_OPT_KEY, "FILE", 0, "with --collector: the collector's shared key" },
	{ "munge", CLI_OPT_MUNGE, NULL, 0, "with --collector: prove who runs it with a MUNGE "
					   "credential (a collect --munge asks for one)" },
	{ "munge-socket", CLI_OPT_MUNGE_SOCKET, "PATH", 0, "munged's socket (default: "
							  "libmunge's own); implies --munge" },
	{},
};

/* The options as a whole. 0, or cli_usage_error()'s value. */
static int check(const struct cli_command *top, struct top_options *o)
{
	const struct trace_options *t = &o->trace;

	if (t->nr_pids && t->command)
		return cli_usage_error(top, "%s", "top watches -p PID... or a COMMAND, not both");
	if (o->collector && (t->nr_pids || t->command || t->mpi_only))
		return cli_usage_error(top, "%s", "top watches a collector's run or processes "
					     "here, not both");
	if (o->collector && (o->out.pprof_path || o->out.folded_path))
		return cli_usage_error(top, "%s", "--pprof and --folded export the processes top "
					     "traces here, not a collector's run");
	if (cli_check_exports(top, &o->out))
		return EINVAL;
	if (o->out.full && o->json_lines)
		return cli_usage_error(top, "%s", "--full prints text reports, --json JSON ones: "
					     "one of them");
	if (o->out.full && o->collector)
		return cli_usage_error(top, "%s", "--full prints the reports of the processes top "
					     "traces here; a collector's run: heaptap report DB "
					     "--full");
	/* Whole reports are a batch of text: --full implies -b, as --json does. */
	if (o->out.full)
		o->batch = true;
	if (o->collector)
		return 0;
	if (o->run_id || o->cred.key_path || o->cred.munge)
		return cli_usage_error(top, "%s", "--run, --key and --munge go with --collector");
	if (!t->nr_pids && !t->command && !t->mpi_only)
		return cli_usage_error(top, "%s", "top watches -p PID..., --mpi, or "
					     "--follow -- COMMAND");
	if (t->command && !t->follow)
		return cli_usage_error(top, "%s", "top runs a command only with --follow or --mpi");
	return 0;
}

static error_t parse(struct cli_state *c, int key, char *arg)
{
	struct top_options *o = c->opts;
	error_t err;

	switch (key) {
	case ARGP_KEY_INIT:
		cli_trace_defaults(&o->trace);
		cli_outputs_defaults(&o->out);
		return 0;
	case 'b':
		o->batch = true;
		return 0;
	case OPT_JSON_LINES:
		o->json_lines = o->batch = true;
		return 0;
	case 'n':
		return cli_parse_count(c, arg, &o->count);
	case OPT_COLLECTOR:
		o->collector = arg;
		return cli_check_endpoint(c, "--collector", arg);
	case OPT_RUN:
		return cli_parse_run_id(c, arg, &o->run_id);
	case ARGP_KEY_ARG:
		return cli_take_command(c, &o->trace.command);
	case ARGP_KEY_END:
		return check(c->sub, o);
	}
	err = cli_parse_trace(c, &o->trace, key, arg);
	if (err == ARGP_ERR_UNKNOWN)
		err = cli_parse_outputs(c, &o->out, key, arg);
	return err == ARGP_ERR_UNKNOWN ? cli_parse_credentials(c, &o->cred, key, arg) : err;
}

static void free_options(void *opts)
{
	struct top_options *o = opts;

	cli_trace_free(&o->trace);
}

const struct cli_command top_command = {
	.name = "top",
	.summary = "watch processes live, full-screen or as snapshots (-b)",
	.man_section = 8,
	.options = options,
	.args_doc = "-p PID[,PID...]\n--mpi\n--follow [--] COMMAND [ARG...]",
	.doc = "Watch processes live: full-screen, or with -b (or when standard output is not "
	       "a terminal) one snapshot per refresh on standard output.\v"
	       "Keys: c m n r sort by current, max, calls or rate; Enter opens a process; p "
	       "pauses; ? helps; q quits. heaptap --help lists the exit statuses.",
	.command_follows = true,
	.opts_size = sizeof(struct top_options),
	.parse = parse,
	.free = free_options,
	.run = cmd_top,
};
