// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

const char *argp_program_version = "heaptap 0.1";
/* argp's own complaints (a missing option argument) end like ours. */
error_t argp_err_exit_status = EXIT_USAGE;

static const char doc[] =
	"heaptap traces a process's malloc family from outside, with eBPF uprobes, and "
	"reports current/min/max bytes and call counts per thread, library and function.\n\n"
	"  run [OPTIONS] -- COMMAND [ARGS...]  trace COMMAND from its first instruction\n"
	"  attach [OPTIONS] -p PID[,PID...] | --mpi\n"
	"                                      trace running processes until SIGINT,\n"
	"                                      SIGTERM, -d, or they all exit\n"
	"  top [OPTIONS] (-p PID... | --mpi | --follow -- COMMAND)   watch them live\n\n"
	"OPTIONS:"
	"\vExit status: run exits with the command's status (128+N if signal N killed it); "
	"otherwise 0 on success, 1 if BPF could not be loaded or attached, 2 for a bad command "
	"line, 3 for a bad target (no such process, a kernel thread, nothing to probe), "
	"4 without privileges (root, or CAP_BPF and CAP_PERFMON), 5 if some processes could not "
	"be traced (the report lists them and why; run: when the command itself exited 0), 126 if COMMAND cannot be "
	"executed, 127 if COMMAND is not found.";

enum { OPT_JSON = 0x100, OPT_JSON_LINES, OPT_FOLLOW, OPT_MPI, OPT_UNWIND, OPT_STACKS };

#define UNWIND_HELP "tables (default: .eh_frame rows, through code built without frame " \
		    "pointers) or fp (frame pointers only: cheaper, wrong where they are missing)"

static const struct argp_option option_table[] = {
	{ "attribution", 'a', "RULE", 0, "entry (default: the first library function the "
					 "program called) or caller (the innermost function "
					 "outside the allocator)" },
	{ "json", OPT_JSON, "FILE", 0, "also write the report as JSON (schema \"heaptap\": 1)" },
	{ "output", 'o', "FILE", 0, "write the text report to FILE (run: default standard "
				    "error; attach: standard output)" },
	{ "pid", 'p', "PID[,PID...]", 0, "attach: the processes to trace" },
	{ "mpi", OPT_MPI, NULL, 0, "attach: every MPI rank on this node, and every rank that "
				   "starts while heaptap runs; run: like --follow, but trace only "
				   "processes with an MPI rank" },
	{ "duration", 'd', "SECONDS", 0, "attach: detach after SECONDS" },
	{ "follow", OPT_FOLLOW, NULL, 0, "run: trace every process COMMAND starts too, each "
					  "from its first instruction (mpirun and its ranks)" },
	{ "stacks", OPT_STACKS, "FILE", 0, "also write every distinct stack that called the "
					 "allocator, as JSON lines with its calls" },
	{ "unwind", OPT_UNWIND, "MODE", 0, UNWIND_HELP },
	{ "verbose", 'v', NULL, 0, "show what heaptap and libbpf do" },
	{},
};

/* top shares the rest, but its --json prints to standard output. */
static const struct argp_option top_option_table[] = {
	{ "attribution", 'a', "RULE", 0, "entry (default) or caller, as in the reports" },
	{ "pid", 'p', "PID[,PID...]", 0, "the processes to watch" },
	{ "follow", OPT_FOLLOW, NULL, 0, "watch COMMAND and every process it starts" },
	{ "mpi", OPT_MPI, NULL, 0, "every MPI rank on this node, as they start (with a "
				   "COMMAND: like --follow, but only processes with a rank)" },
	{ "batch", 'b', NULL, 0, "print a snapshot per refresh instead of a full screen "
				 "(also when standard output is not a terminal)" },
	{ "json", OPT_JSON_LINES, NULL, 0, "batch: each snapshot as one JSON report on one line" },
	{ "interval", 'i', "SECONDS", 0, "refresh every SECONDS (default 1)" },
	{ "iterations", 'n', "COUNT", 0, "quit after COUNT refreshes" },
	{ "unwind", OPT_UNWIND, "MODE", 0, UNWIND_HELP },
	{ "verbose", 'v', NULL, 0, "show what heaptap and libbpf do" },
	{},
};

static void usage_error(struct argp_state *state, const char *fmt, const char *arg)
{
	fprintf(stderr, "heaptap: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see heaptap --help)\n");
	(void)state;
	exit(EXIT_USAGE);
}

static void add_pids(struct argp_state *state, struct options *o, const char *list)
{
	char *copy = strdup(list), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long pid;
		pid_t *grown;

		errno = 0;
		pid = strtol(tok, &end, 10);
		if (errno || end == tok || *end || pid <= 0 || pid > 1 << 22)
			usage_error(state, "'%s' is not a PID", tok);
		grown = realloc(o->pids, (o->nr_pids + 1) * sizeof(*grown));
		if (!grown)
			usage_error(state, "%s", "out of memory");
		o->pids = grown;
		o->pids[o->nr_pids++] = pid;
	}
	free(copy);
}

static error_t parse_option(int key, char *arg, struct argp_state *state)
{
	struct options *o = state->input;
	char *end;

	switch (key) {
	case 'a':
		if (attribution_rule_parse(arg, &o->rule))
			usage_error(state, "attribution must be entry or caller, not '%s'", arg);
		break;
	case OPT_JSON:
		o->json_path = arg;
		break;
	case 'o':
		o->text_path = arg;
		break;
	case 'p':
		add_pids(state, o, arg);
		break;
	case 'd':
		o->duration = strtod(arg, &end);
		if (end == arg || *end || o->duration <= 0)
			usage_error(state, "-d wants a positive number of seconds, not '%s'", arg);
		break;
	case OPT_FOLLOW:
		o->follow = true;
		break;
	case OPT_JSON_LINES:
		o->json_lines = o->batch = true;
		break;
	case 'b':
		o->batch = true;
		break;
	case 'i':
		o->interval = strtod(arg, &end);
		if (end == arg || *end || o->interval < 0.05)
			usage_error(state, "-i wants seconds (0.05 or more), not '%s'", arg);
		break;
	case 'n':
		o->count = strtol(arg, &end, 10);
		if (end == arg || *end || o->count <= 0)
			usage_error(state, "-n wants a positive count, not '%s'", arg);
		break;
	case OPT_MPI:
		o->follow = o->mpi_only = true;
		break;
	case OPT_UNWIND:
		if (strcmp(arg, "tables") && strcmp(arg, "fp"))
			usage_error(state, "--unwind must be tables or fp, not '%s'", arg);
		o->frame_pointers = !strcmp(arg, "fp");
		break;
	case OPT_STACKS:
		o->stacks_path = arg;
		break;
	case 'v':
		o->verbose = true;
		break;
	case ARGP_KEY_ARG:
		/* In order: the first word that is not an option starts the command. */
		if (o->cmd == CMD_ATTACH)
			usage_error(state, "unexpected argument '%s'", arg);
		o->command = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (o->cmd == CMD_RUN && !o->command)
			usage_error(state, "%s", "run needs a command: heaptap run -- COMMAND");
		if (o->cmd == CMD_RUN && o->nr_pids)
			usage_error(state, "%s", "-p belongs to attach, not run");
		if (o->cmd == CMD_TOP && !o->nr_pids == !o->command && !o->mpi_only)
			usage_error(state, "%s", "top watches -p PID..., --mpi, or --follow -- COMMAND");
		if (o->cmd == CMD_TOP && o->command && !o->follow)
			usage_error(state, "%s", "top runs a command only with --follow or --mpi");
		if (o->cmd == CMD_ATTACH && !o->nr_pids && !o->mpi_only)
			usage_error(state, "%s", "attach needs -p PID or --mpi");
		if (o->cmd == CMD_ATTACH && o->follow && !o->mpi_only)
			usage_error(state, "%s", "--follow belongs to run and top, not attach");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

void cli_parse(int argc, char **argv, struct options *opts)
{
	static const struct argp argp = { option_table, parse_option, "run|attach|top ...", doc };
	static const struct argp top_argp = { top_option_table, parse_option, "...", doc };
	const char *sub = argc > 1 ? argv[1] : "";

	memset(opts, 0, sizeof(*opts));
	opts->rule = ATTRIBUTE_ENTRY;
	opts->interval = 1.0;
	if (!strcmp(sub, "run")) {
		opts->cmd = CMD_RUN;
	} else if (!strcmp(sub, "attach")) {
		opts->cmd = CMD_ATTACH;
	} else if (!strcmp(sub, "top")) {
		opts->cmd = CMD_TOP;
		argv[1] = argv[0];
		argp_parse(&top_argp, argc - 1, argv + 1, ARGP_IN_ORDER, NULL, opts);
		return;
	} else if (sub[0] == '-') {
		/* --help, --version, --usage */
		argp_parse(&argp, argc, argv, 0, NULL, opts);
		fprintf(stderr, "heaptap: name a subcommand: run, attach or top "
				"(see heaptap --help)\n");
		exit(EXIT_USAGE);
	} else {
		if (sub[0])
			fprintf(stderr, "heaptap: unknown subcommand '%s': ", sub);
		else
			fprintf(stderr, "heaptap: name a subcommand: ");
		fprintf(stderr, "run, attach or top (see heaptap --help)\n");
		exit(EXIT_USAGE);
	}
	argv[1] = argv[0];
	argp_parse(&argp, argc - 1, argv + 1, ARGP_IN_ORDER, NULL, opts);
}

void cli_free(struct options *opts)
{
	free(opts->pids);
}
