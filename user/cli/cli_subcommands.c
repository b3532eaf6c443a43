// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The subcommands' options, their parser, and each subcommand's check of the whole. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_table.h"
#include "custom_allocs.h"

/* The kernel's PID_MAX_LIMIT on 64-bit: no PID is larger. */
#define PID_LIMIT (1 << 22)

#define OPTION_JSON_FILE { "json", OPT_JSON, "FILE", 0, "also write the report as JSON " \
							"(schema \"heaptap\": 2)" }
#define OPTION_STACKS                                                                       \
	{ "stacks", OPT_STACKS, "FILE", 0, "also write every distinct stack that called the " \
					   "allocator, as JSON lines with its calls" }
/* The call tree in the text report (report_tree.c). */
#define OPTION_TREE                                                                          \
	{ "tree", OPT_TREE, NULL, 0, "also print each process's inclusive call tree, sorted by " \
				     "max" },                                                   \
	{ "depth", OPT_DEPTH, "N", 0, "with --tree: show N levels of it" },                      \
	{ "under", OPT_UNDER, "FUNCTION", 0, "with --tree: start at FUNCTION, wherever it is "   \
					     "called (its places summed)" }

/* What heaptap keeps of a target's files (budget.h): the defaults suit any real job. */
#define OPTION_BUDGETS                                                                       \
	{ "table-budget", OPT_TABLE_BUDGET, "SIZE[,TOTAL]", 0,                                  \
	  "memory for unwind tables: per file and in all (default 32M,64M; sizes in K, M, G; "  \
	  "at most 256M); a file over it is unwound by frame pointers" },                       \
	{ "symbol-budget", OPT_SYMBOL_BUDGET, "SIZE[,TOTAL]", 0,                                \
	  "memory for symbols and call sites: per file and in all (default 64M,256M); a file "  \
	  "over it goes unnamed" },                                                             \
	{ "tree-budget", OPT_TREE_BUDGET, "SIZE", 0,                                            \
	  "memory for the call trees of processes that ended (default 64M); beyond it the "     \
	  "oldest ended trees are dropped, and the report says so" }

/* The owner figures in the end-of-run reports: their samples, and their stacks' length. */
#define OPTION_OWNER                                                                          \
	OPTION_LIVE_BLOCKS,                                                                   \
	OPTION_ALLOCATOR,                                                                     \
	{ "interval", 'i', "SECONDS", 0, "sample each allocation site's outstanding bytes (to " \
					 "tell likely leaks) and each process's RSS every "      \
					 "SECONDS (default 1)" },                               \
	{ "site-depth", OPT_SITE_DEPTH, "N", 0, "frames shown per allocation site in the text "   \
						"report (default 6)" }

/* Said by every subcommand that writes reports. */
#define REPORT_FILES_DOC                                                                     \
	"Report files (--json, -o, --stacks, --pprof, --folded) are opened before tracing "    \
	"starts, so a bad path fails at once with exit status 2. A file that exists keeps its " \
	"contents until the report replaces them at the end; one heaptap created is removed "   \
	"if no report is written (the target could not be traced). heaptap --help lists the "  \
	"exit statuses."

static const struct argp_option run_options[] = {
	OPTION_ATTRIBUTION,
	OPTION_JSON_FILE,
	{ "output", 'o', "FILE", 0, "write the text report to FILE instead of standard error" },
	OPTION_STACKS,
	CLI_EXPORT_OPTIONS,
	OPTION_TREE,
	{ "follow", OPT_FOLLOW, NULL, 0, "trace every process COMMAND starts too, each from its "
					  "first instruction (mpirun and its ranks)" },
	{ "mpi", OPT_MPI, NULL, 0, "like --follow, but trace only the processes with an MPI "
				   "rank" },
	OPTION_UNWIND,
	OPTION_CONSUMERS,
	OPTION_BUDGETS,
	OPTION_OWNER,
	{},
};

static const struct argp_option attach_options[] = {
	{ "pid", 'p', "PID[,PID...]", 0, "the processes to trace (the option may be repeated)" },
	{ "mpi", OPT_MPI, NULL, 0, "every MPI rank on this node, and every rank that starts "
				   "while heaptap runs" },
	{ "duration", 'd', "SECONDS", 0, "detach after SECONDS" },
	OPTION_ATTRIBUTION,
	OPTION_JSON_FILE,
	{ "output", 'o', "FILE", 0, "write the text report to FILE instead of standard output" },
	OPTION_STACKS,
	CLI_EXPORT_OPTIONS,
	OPTION_TREE,
	OPTION_UNWIND,
	OPTION_CONSUMERS,
	OPTION_BUDGETS,
	OPTION_OWNER,
	{},
};

/* top's --json is a flag: its snapshots go to standard output. */
static const struct argp_option top_options[] = {
	{ "pid", 'p', "PID[,PID...]", 0, "the processes to watch" },
	{ "mpi", OPT_MPI, NULL, 0, "every MPI rank on this node, as they start (with a "
				   "COMMAND: like --follow, but only processes with a rank)" },
	{ "follow", OPT_FOLLOW, NULL, 0, "watch COMMAND and every process it starts" },
	{ "batch", 'b', NULL, 0, "print a snapshot per refresh instead of a full screen "
				 "(also when standard output is not a terminal)" },
	{ "json", OPT_JSON_LINES, NULL, 0, "batch: each snapshot as one JSON report on one line" },
	{ "interval", 'i', "SECONDS", 0, "refresh every SECONDS (default 1)" },
	{ "iterations", 'n', "COUNT", 0, "quit after COUNT refreshes" },
	CLI_EXPORT_OPTIONS,
	OPTION_ATTRIBUTION,
	OPTION_UNWIND,
	OPTION_CONSUMERS,
	OPTION_BUDGETS,
	OPTION_LIVE_BLOCKS,
	OPTION_ALLOCATOR,
	CLI_TOP_CLUSTER_OPTIONS,
	{},
};

static const struct argp_option sites_options[] = {
	{ "pid", 'p', "PID", 0, "the allocator this process calls (default: the C library "
				"heaptap itself runs with)" },
	{},
};

static const struct argp_option report_options[] = {
	OPTION_TREE,
	{ "json", OPT_JSON, "FILE", 0, "write the job's summary as JSON (schema "
				       "\"heaptap_summary\": 1); with --full, --rank or --tree, "
				       "the processes and their trees (as --tree, --depth and "
				       "--under select)" },
	{ "output", 'o', "FILE", 0, "write the text to FILE instead of standard output" },
	{ "count", 'n', "N", 0, "the summary's tables: the N libraries and functions of largest "
				"max (default 20; with --json, all unless -n)" },
	{ "full", OPT_FULL, NULL, 0, "each process's own report instead of the job's summary" },
	{ "html", OPT_HTML, "FILE", 0, "also write the job as one self-contained web page: the "
				       "summary, memory over time per rank, functions and "
				       "libraries across ranks, the call tree, each rank's report" },
	CLI_EXPORT_OPTIONS,
	CLI_REPORT_RANK_OPTION,
	CLI_REPORT_DB_OPTIONS,
	{ "site-depth", OPT_SITE_DEPTH, "N", 0, "frames shown per allocation site in the text of "
						"a database's run (default 6)" },
	{},
};

static const struct argp_option compare_options[] = {
	{ "under", OPT_UNDER, "FUNCTION", 0, "compare the calls below FUNCTION (default: below "
					     "each entry function, the program's first call into "
					     "a library)" },
	{ "depth", OPT_DEPTH, "N", 0, "compare N levels, FUNCTION's own included (default 3)" },
	{ "by", OPT_BY, "world_size", 0, "what the runs differ in: world_size (the default, "
					 "and the only one)" },
	{ "json", OPT_JSON, "FILE", 0, "also write the comparison as JSON "
				       "(schema \"heaptap_compare\": 1)" },
	{ "html", OPT_HTML, "FILE", 0, "also write it as a web page, a plot per growing "
				       "function" },
	{},
};

static int check_run(const struct cli_subcommand *sub, struct options *o);
static int check_tree_options(const struct cli_subcommand *sub, struct options *o);
static int check_store_migrate(const struct cli_subcommand *sub, struct options *o)
{
	if (o->nr_inputs != 2)
		return cli_usage_error(sub, "%s", "store-migrate needs two databases: FROM TO, "
				       "e.g. run.sqlite postgresql://HOST/DB");
	return 0;
}

static int check_attach(const struct cli_subcommand *sub, struct options *o);
static int check_top(const struct cli_subcommand *sub, struct options *o);
static int check_sites(const struct cli_subcommand *sub, struct options *o);
static int check_report(const struct cli_subcommand *sub, struct options *o);
static int check_compare(const struct cli_subcommand *sub, struct options *o);
static int check_store_migrate(const struct cli_subcommand *sub, struct options *o);

static const struct argp_option store_migrate_options[] = {
	{},
};

/* To add a subcommand: its options, a check, and a line here; main() runs it. */
const struct cli_subcommand cli_subcommands[] = {
	{
		.name = "run",
		.prog = "heaptap run",
		.man_section = 8,
		.summary = "trace COMMAND from its first instruction",
		.cmd = CMD_RUN,
		.options = run_options,
		.args_doc = "[--] COMMAND [ARG...]",
		.doc = "Trace COMMAND from its first instruction. The report goes to standard "
		       "error (COMMAND owns standard output); heaptap exits with COMMAND's status "
		       "(128+N if signal N killed it).\v" REPORT_FILES_DOC,
		.command_follows = true,
		.check = check_run,
	},
	{
		.name = "attach",
		.prog = "heaptap attach",
		.man_section = 8,
		.summary = "trace running processes until Ctrl-C, SIGTERM, -d, or they all exit",
		.cmd = CMD_ATTACH,
		.options = attach_options,
		.args_doc = "-p PID[,PID...]\n--mpi",
		.doc = "Trace running processes until Ctrl-C, SIGTERM, -d SECONDS, or until they "
		       "all exit (with --mpi: until Ctrl-C, SIGTERM or -d). The report goes to "
		       "standard output. Once the probes are live heaptap prints "
		       "'heaptap: attached to PID <pid>' on standard error.\v" REPORT_FILES_DOC,
		.check = check_attach,
	},
	{
		.name = "top",
		.prog = "heaptap top",
		.man_section = 8,
		.summary = "watch processes live, full-screen or as snapshots (-b)",
		.cmd = CMD_TOP,
		.options = top_options,
		.args_doc = "-p PID[,PID...]\n--mpi\n--follow [--] COMMAND [ARG...]",
		.doc = "Watch processes live: full-screen, or with -b (or when standard output is "
		       "not a terminal) one snapshot per refresh on standard output.\v"
		       "Keys: c m n r sort by current, max, calls or rate; Enter opens a process; "
		       "p pauses; ? helps; q quits. heaptap --help lists the exit statuses.",
		.command_follows = true,
		.check = check_top,
	},
	{
		.name = "sites",
		.prog = "heaptap sites",
		.man_section = 1,
		.summary = "show where heaptap probes each allocator entry point, and why",
		.cmd = CMD_SITES,
		.options = sites_options,
		.args_doc = "[-p PID | FILE]",
		.doc = "Show, for each malloc-family entry point of an allocator (the one PID "
		       "calls, the one in FILE, or heaptap's own C library), its first "
		       "instructions, where heaptap places its probe and the rule that chose "
		       "the place. The kernel emulates a few instructions (push of a register, "
		       "relative jumps and calls, nop) and single-steps every other probed one "
		       "at the price of a second trap: heaptap probes the first emulated "
		       "instruction when what it skips changes nothing its probe reads.\v"
		       "Offsets are file offsets. Needs no privilege for FILE.",
		.check = check_sites,
	},
	{
		.name = "report",
		.prog = "heaptap report",
		.man_section = 1,
		.summary = "a job's memory across its ranks, from JSON reports or a database",
		.cmd = CMD_REPORT,
		.options = report_options,
		.args_doc = "FILE.json...\nDB.sqlite\npostgresql://HOST/DB",
		.doc = "Read a job's JSON reports (one, or one per rank) or a run stored by "
		       "heaptap collect (the newest, or --run ID) and print the job's summary: "
		       "each rank's current and peak as min/median/max, the outlier ranks, and "
		       "each library and function across the ranks; --json writes it as JSON, "
		       "--html as one web page. --rank R prints rank R's own report, --full "
		       "every process's, --tree the call trees of one file; --list lists the "
		       "stored runs. --pprof and "
		       "--folded export the allocation stacks, of every process or of --rank R. "
		       "Needs no privileges.",
		.takes_files = true,
		.check = check_report,
	},
	{
		.name = "compare",
		.prog = "heaptap compare",
		.man_section = 1,
		.summary = "which functions grow with the number of processes, across reports",
		.cmd = CMD_COMPARE,
		.options = compare_options,
		.args_doc = "REPORT.json...",
		.doc = "Compare JSON reports of one program run at different process counts: for "
		       "each call-tree node below FUNCTION, the median over ranks of its current "
		       "and max bytes per run, and a least-squares line max = a + b*p through "
		       "them. b is bytes_per_process; a function grows when b*p at the largest p "
		       "is at least 10% of its max there and R^2 is at least 0.8. Sorted by "
		       "growth. Needs no privileges.",
		.takes_files = true,
		.check = check_compare,
	},
	{
		.name = "agent",
		.prog = "heaptap agent",
		.man_section = 8,
		.summary = "trace like run or attach, and stream what changes to a collector",
		.cmd = CMD_AGENT,
		.options = cli_agent_options,
		.args_doc = "--collector HOST:PORT --mpi\n--collector HOST:PORT -p PID[,PID...]\n"
			    "--collector HOST:PORT [--follow|--mpi] [--] COMMAND [ARG...]",
		.doc = "Trace like run (with a COMMAND) or attach (-p, --mpi), and every -i "
		       "seconds send each traced process's changes to the collector, and a final "
		       "report when it ends. With a COMMAND it exits with COMMAND's status once "
		       "the collector has acknowledged everything (or after waiting 15 s, saying "
		       "what was not delivered); otherwise it runs until Ctrl-C or SIGTERM (-p: or "
		       "until the processes exit). While the collector is unreachable it keeps "
		       "tracing and buffering (--buffer, 64M by default), reconnecting with "
		       "backoff.\vOne agent per rank: mpirun -np N heaptap agent --collector X -- "
		       "./app. One per node: heaptap agent --collector X --mpi -- mpirun ... or "
		       "srun --ntasks-per-node=1 --overlap heaptap agent --collector X --mpi.",
		.command_follows = true,
		.check = cli_check_agent,
	},
	{
		.name = "collect",
		.prog = "heaptap collect",
		.man_section = 8,
		.summary = "receive what agents send and store the runs in SQLite or PostgreSQL",
		.cmd = CMD_COLLECT,
		.options = cli_collect_options,
		.args_doc = "--db FILE.sqlite\n--db postgresql://HOST/DB",
		.doc = "Accept agents (and top --collector), store what they send in FILE.sqlite "
		       "or in a PostgreSQL database that many collectors share "
		       "and run until Ctrl-C or SIGTERM. Prints 'heaptap: collecting on "
		       "ADDR:PORT' on standard error once it accepts connections (port 0 takes a "
		       "free port, and the line shows it).",
		.check = cli_check_collect,
	},
	{
		.name = "store-migrate",
		.prog = "heaptap store-migrate",
		.man_section = 1,
		.summary = "copy the runs of one collector database into another",
		.cmd = CMD_STORE_MIGRATE,
		.options = store_migrate_options,
		.args_doc = "FROM TO",
		.doc = "Copy every run of the database FROM (an SQLite file or a PostgreSQL "
		       "connection string) into TO (the same, usually postgresql://HOST/DB), in "
		       "one transaction: all of it or nothing. A run TO has already (the same job "
		       "id, or the same agent) is left as it is there. Prints a line per run, its "
		       "id in FROM and in TO. Needs no privileges.",
		.takes_files = true,
		.check = check_store_migrate,
	},
};

const size_t cli_nr_subcommands = sizeof(cli_subcommands) / sizeof(cli_subcommands[0]);

/* The PIDs of a -p list, appended to o->pids; a PID named twice is kept once. */
static int add_pids(const struct cli_state *c, const char *list)
{
	struct options *o = c->opts;
	const char *item = list;

	for (;;) {
		size_t len = strcspn(item, ",");
		long pid = 0;
		pid_t *grown;
		size_t i;

		if (!len)
			return cli_usage_error(c->sub, "-p '%s' has an empty item: separate "
					       "PIDs with single commas", list);
		for (i = 0; i < len && pid <= PID_LIMIT; i++) {
			if (item[i] < '0' || item[i] > '9')
				break;
			pid = pid * 10 + (item[i] - '0');
		}
		if (i < len || pid <= 0 || pid > PID_LIMIT)
			return cli_usage_error(c->sub, "'%.*s' is not a PID", (int)len, item);
		if (pid == getpid())
			return cli_usage_error(c->sub, "PID %ld is heaptap itself: name the "
					       "processes to trace", pid);
		for (i = 0; i < o->nr_pids && o->pids[i] != pid; i++)
			;
		if (i == o->nr_pids) {
			grown = realloc(o->pids, (o->nr_pids + 1) * sizeof(*grown));
			if (!grown)
				return cli_usage_error(c->sub, "%s", "out of memory");
			o->pids = grown;
			o->pids[o->nr_pids++] = pid;
		}
		if (!item[len])
			return 0;
		item += len + 1;
	}
}

static int parse_seconds(const struct cli_state *c, const char *opt, const char *arg,
			 double min, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (errno || end == arg || *end || !(*out >= min) || *out > 1e9)
		return cli_usage_error(c->sub, "%s wants a number of seconds (%g or more), "
				       "not '%s'", opt, min, arg);
	return 0;
}

static int parse_budget(const struct cli_state *c, const char *opt, const char *arg,
			uint64_t max, struct budget_limits *out)
{
	if (budget_limits_parse(arg, max, out))
		return cli_usage_error(c->sub, "%s wants SIZE[,TOTAL] sizes above 0 and at most "
				       "%lluM, such as 16M,64M, not '%s'", opt,
				       (unsigned long long)(max >> 20), arg);
	return 0;
}

/* --allocator NAME|FILE: read now, so that a bad spec stops heaptap before it traces. */
static int parse_allocator(struct cli_state *c, const char *arg)
{
	struct options *o = c->opts;
	struct alloc_spec *more;
	char err[512];

	if (o->nr_allocators >= CUSTOM_ALLOCS_MAX)
		return cli_usage_error(c->sub, "at most %d --allocator options", CUSTOM_ALLOCS_MAX);
	more = realloc(o->allocators, (o->nr_allocators + 1) * sizeof(*more));
	if (!more)
		return ENOMEM;
	o->allocators = more;
	if (alloc_spec__load(arg, &o->allocators[o->nr_allocators], err, sizeof(err))) {
		fprintf(stderr, "heaptap: %s\n", err);
		return EINVAL;
	}
	for (size_t i = 0; i < o->nr_allocators; i++) {
		if (!strcmp(o->allocators[i].name, o->allocators[o->nr_allocators].name))
			return cli_usage_error(c->sub, "two --allocator options named %s",
					       o->allocators[i].name);
	}
	o->nr_allocators++;
	return 0;
}

error_t cli_parse_option(int key, char *arg, struct argp_state *state)
{
	struct cli_state *c = state->input;
	struct options *o = c->opts;
	char *end;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = c; /* the global options */
		return 0;
	case 'a':
		if (attribution_rule_parse(arg, &o->rule))
			return cli_usage_error(c->sub, "attribution must be entry or caller, "
					       "not '%s'", arg);
		return 0;
	case OPT_JSON:
		o->json_path = arg;
		return 0;
	case 'o':
		o->text_path = arg;
		return 0;
	case OPT_STACKS:
		o->stacks_path = arg;
		return 0;
	case 'p':
		return add_pids(c, arg);
	case 'd':
		/* 0.001 s: a duration that rounds to nothing is a typo, not a request. */
		return parse_seconds(c, "-d", arg, 0.001, &o->duration);
	case 'i':
		return parse_seconds(c, "-i", arg, 0.05, &o->interval);
	case 'n':
		errno = 0;
		o->count = strtol(arg, &end, 10);
		if (errno || end == arg || *end || o->count <= 0)
			return cli_usage_error(c->sub, "-n wants a positive count, not '%s'", arg);
		return 0;
	case OPT_FOLLOW:
		o->follow = true;
		return 0;
	case OPT_MPI:
		o->follow = o->mpi_only = true;
		return 0;
	case 'b':
		o->batch = true;
		return 0;
	case OPT_JSON_LINES:
		o->json_lines = o->batch = true;
		return 0;
	case OPT_UNWIND:
		if (strcmp(arg, "tables") && strcmp(arg, "fp"))
			return cli_usage_error(c->sub, "--unwind must be tables or fp, not '%s'",
					       arg);
		o->frame_pointers = !strcmp(arg, "fp");
		return 0;
	case OPT_TABLE_BUDGET:
		return parse_budget(c, "--table-budget", arg, TABLE_BUDGET_MAX, &o->table_budget);
	case OPT_SYMBOL_BUDGET:
		return parse_budget(c, "--symbol-budget", arg, SYMBOL_BUDGET_MAX, &o->symbol_budget);
	case OPT_TREE_BUDGET:
		if (budget_size_parse(arg, strlen(arg), TREE_BUDGET_MAX, &o->tree_budget) ||
		    !o->tree_budget)
			return cli_usage_error(c->sub, "--tree-budget wants a size above 0 and at "
					       "most %lluM, such as 16M, not '%s'",
					       (unsigned long long)(TREE_BUDGET_MAX >> 20), arg);
		return 0;
	case OPT_TREE:
		o->tree = true;
		return 0;
	case OPT_FULL:
		o->full = true;
		return 0;
	case OPT_LIVE_BLOCKS:
		errno = 0;
		o->live_blocks = strtoull(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || !o->live_blocks ||
		    o->live_blocks > (1ull << 32))
			return cli_usage_error(c->sub, "--live-blocks wants a number of blocks (1 "
					       "to 4294967296), not '%s'", arg);
		return 0;
	case OPT_CONSUMERS:
		errno = 0;
		o->consumers = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || !o->consumers ||
		    o->consumers > CLI_MAX_CONSUMERS)
			return cli_usage_error(c->sub, "--consumers wants a number of threads (1 "
					       "to %d), not '%s'", CLI_MAX_CONSUMERS, arg);
		return 0;
	case OPT_ALLOCATOR:
		return parse_allocator(c, arg);
	case OPT_SITE_DEPTH:
		errno = 0;
		o->site_depth = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || o->site_depth == 0 ||
		    o->site_depth > 1000)
			return cli_usage_error(c->sub, "--site-depth wants a number of frames (1 "
					       "to 1000), not '%s'", arg);
		return 0;
	case OPT_DEPTH:
		errno = 0;
		o->depth = strtoul(arg, &end, 10);
		if (errno || end == arg || *end || arg[0] == '-' || o->depth == 0 ||
		    o->depth > 1000)
			return cli_usage_error(c->sub, "--depth wants a number of levels (1 to "
					       "1000), not '%s'", arg);
		return 0;
	case OPT_UNDER:
		if (!arg[0])
			return cli_usage_error(c->sub, "%s", "--under wants a function's name");
		o->under = arg;
		return 0;
	case OPT_BY:
		if (strcmp(arg, "world_size"))
			return cli_usage_error(c->sub, "--by must be world_size, not '%s'", arg);
		return 0;
	case OPT_HTML:
		o->html_path = arg;
		return 0;
	case ARGP_KEY_ARG:
		if (c->sub->cmd == CMD_SITES && !o->file) {
			o->file = arg;
			return 0;
		}
		if (c->sub->takes_files) {
			const char **grown = realloc(o->inputs, (o->nr_inputs + 1) * sizeof(*grown));

			if (!grown)
				return cli_usage_error(c->sub, "%s", "out of memory");
			o->inputs = grown;
			o->inputs[o->nr_inputs++] = arg;
			return 0;
		}
		if (!c->sub->command_follows)
			return cli_usage_error(c->sub, "%s takes no argument, and '%s' is not an "
					       "option", c->sub->name, arg);
		/* The first word that is not an option starts the command, with its options. */
		o->command = &state->argv[state->next - 1];
		state->next = state->argc;
		return 0;
	case ARGP_KEY_END:
		return c->sub->check(c->sub, o);
	case OPT_PPROF:
	case OPT_FOLDED:
	case OPT_FOLDED_WEIGHT:
	case OPT_RANK:
		return cli_parse_export_option(c, key, arg);
	default:
		return cli_parse_cluster_option(c, key, arg);
	}
}

static int check_run(const struct cli_subcommand *sub, struct options *o)
{
	if (!o->command)
		return cli_usage_error(sub, "%s",
				       "run needs a command: heaptap run [OPTION...] -- COMMAND");
	return check_tree_options(sub, o) || cli_check_exports(sub, o) ?
		       EINVAL :
		       0;
}

/* --depth and --under shape the tree --tree prints. */
static int check_tree_options(const struct cli_subcommand *sub, struct options *o)
{
	if ((o->depth || o->under) && !o->tree)
		return cli_usage_error(sub, "%s", "--depth and --under shape the call tree: add "
					     "--tree");
	return 0;
}

static int check_report(const struct cli_subcommand *sub, struct options *o)
{
	if (!o->nr_inputs)
		return cli_usage_error(sub, "%s", "report reads JSON reports of one job, or a "
					     "database: heaptap report FILE.json..., or DB.sqlite");
	if (o->nr_inputs > 1 && (o->tree || o->full || o->pprof_path || o->folded_path ||
				 o->list_runs))
		return cli_usage_error(sub, "%s", "--tree, --full, --pprof, --folded and --list "
					     "read one file: name one, or drop them for the job's "
					     "summary of several");
	if (o->html_path && (o->tree || o->full || o->rank >= 0 || o->pprof_path ||
			     o->folded_path || o->list_runs))
		return cli_usage_error(sub, "%s", "--html writes the job's page: drop --tree, "
					     "--full, --rank, --pprof, --folded and --list");
	return check_tree_options(sub, o) || cli_check_exports(sub, o) ? EINVAL : 0;
}

static int check_compare(const struct cli_subcommand *sub, struct options *o)
{
	if (o->nr_inputs < 2)
		return cli_usage_error(sub, "%s", "compare needs two or more "
				       "reports, of runs at different process counts");
	if (!o->depth)
		o->depth = 3;
	return 0;
}

static int check_attach(const struct cli_subcommand *sub, struct options *o)
{
	if (!o->nr_pids && !o->mpi_only)
		return cli_usage_error(sub, "%s", "attach needs -p PID or --mpi");
	return check_tree_options(sub, o) ||
			       cli_check_exports(sub, o) ?
		       EINVAL :
		       0;
}

static int check_top(const struct cli_subcommand *sub, struct options *o)
{
	const struct cli_subcommand *top = sub;

	if (o->nr_pids && o->command)
		return cli_usage_error(top, "%s", "top watches -p PID... or a COMMAND, not both");
	if (o->collector && (o->nr_pids || o->command || o->mpi_only))
		return cli_usage_error(top, "%s", "top watches a collector's run or processes "
					     "here, not both");
	if (o->collector && (o->pprof_path || o->folded_path))
		return cli_usage_error(top, "%s", "--pprof and --folded export the processes top "
					     "traces here, not a collector's run");
	if (cli_check_exports(top, o))
		return EINVAL;
	if (o->collector)
		return 0;
	if (o->run_id || o->key_path || o->munge)
		return cli_usage_error(top, "%s", "--run, --key and --munge go with --collector");
	if (!o->nr_pids && !o->command && !o->mpi_only)
		return cli_usage_error(top, "%s", "top watches -p PID..., --mpi, or "
					     "--follow -- COMMAND");
	if (o->command && !o->follow)
		return cli_usage_error(top, "%s", "top runs a command only with --follow or --mpi");
	return 0;
}

static int check_sites(const struct cli_subcommand *sub, struct options *o)
{
	const struct cli_subcommand *sites = sub;

	if (o->file && o->nr_pids)
		return cli_usage_error(sites, "%s", "sites reads -p PID or a FILE, not both");
	if (o->nr_pids > 1)
		return cli_usage_error(sites, "%s", "sites reads one process: -p PID");
	return 0;
}
