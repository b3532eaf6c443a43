/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The subcommands' table, shared by the command-line files only: each subcommand is its
 * own argp (so --help lists only its options) and a check of the whole once parsed. Its
 * option tables are the one place an option is described: --help, the man pages and the
 * bash completion (tools/man/gendoc.c) are all made from them. cli_subcommands.c holds the
 * table and the tracing subcommands' options, cli_cluster.c the cluster's, cli_exports.c
 * the exports'; they call each other only through this header, one way.
 */
#ifndef HEAPTAP_CLI_TABLE_H
#define HEAPTAP_CLI_TABLE_H

#include <argp.h>
#include "cli.h"

/* Keys of the options without a short form. */
enum {
	OPT_JSON = 0x100,
	OPT_JSON_LINES,
	OPT_FOLLOW,
	OPT_MPI,
	OPT_UNWIND,
	OPT_STACKS,
	OPT_TABLE_BUDGET,
	OPT_SYMBOL_BUDGET,
	OPT_TREE_BUDGET,
	OPT_TREE,
	OPT_DEPTH,
	OPT_UNDER,
	OPT_BY,
	OPT_HTML,
	OPT_COLLECTOR,
	OPT_KEY,
	OPT_MUNGE,
	OPT_MUNGE_SOCKET,
	OPT_LISTEN,
	OPT_DB,
	OPT_METRICS,
	OPT_CLIENT_TIMEOUT,
	OPT_LOST_AFTER,
	OPT_COMMIT_EVERY,
	OPT_BUFFER,
	OPT_RUN,
	OPT_LIST,
	OPT_LIVE_BLOCKS,
	OPT_SITE_DEPTH,
	OPT_PPROF,
	OPT_FOLDED,
	OPT_FOLDED_WEIGHT,
	OPT_RANK,
	OPT_ALLOCATOR,
	OPT_FULL,
	OPT_CONSUMERS,
};

/* The attribution rule and the unwinder of every subcommand that traces. */
#define OPTION_ATTRIBUTION                                                                  \
	{ "attribution", 'a', "entry|caller", 0,                                             \
	  "entry (default: the first library function the program called) or caller (the "  \
	  "innermost function outside the allocator)" }
#define OPTION_UNWIND                                                                       \
	{ "unwind", OPT_UNWIND, "tables|fp", 0,                                              \
	  "tables (default: .eh_frame rows, through code built without frame pointers) or "  \
	  "fp (frame pointers only: cheaper, wrong where they are missing)" }

/* Allocator APIs beyond the malloc family (alloc_spec.h). */
#define OPTION_ALLOCATOR                                                                     \
	{ "allocator", OPT_ALLOCATOR, "NAME|FILE", 0, "also trace this allocator API: tbb "   \
						      "(scalable_*), or a spec FILE of "      \
						      "'FUNCTION KIND ROLE=argN' lines; "     \
						      "repeatable" }

/* The threads that read the events, each the processes of its own ring (session.h). */
#define OPTION_CONSUMERS                                                                     \
	{ "consumers", OPT_CONSUMERS, "N", 0, "read the events with N threads, each owning a " \
					      "share of the processes (default: one for a "   \
					      "single process, else the online CPUs, at most " \
					      "8)" }

/* Who holds the memory (owner.h): its table's limit; -i, its samples. */
#define OPTION_LIVE_BLOCKS                                                                   \
	{ "live-blocks", OPT_LIVE_BLOCKS, "N", 0, "remember at most N live blocks per process " \
						  "for the owner figures (default 4194304: ~180 MiB " \
						  "at most); blocks past it are counted, not owned" }

/*
 * What an option's argument is, as its table writes it (arg): the man pages and the shell
 * completion read it from there. Lower-case words separated by '|' are the only values it
 * takes ("entry|caller"); a name with PID in it takes process ids; with FILE, PATH, .json
 * or .sqlite in it a file; anything else (N, SECONDS, HOST:PORT) is typed by hand.
 */
struct cli_subcommand {
	const char *name;
	const char *prog;    /* "heaptap NAME": argp's name in usage lines and messages */
	const char *summary; /* its line in heaptap --help, its man page's NAME */
	int man_section;     /* its man page: heaptap-NAME(8) traces, (1) reads files */
	enum subcommand cmd;
	/* Its options; its parser is cli_parse_option, with heaptap's global options as child. */
	const struct argp_option *options;
	const char *args_doc;
	const char *doc;
	/*
	 * The first argument that is not an option starts a command whose own options follow
	 * (run, top): heaptap's options end there. Else arguments and options may mix.
	 */
	bool command_follows;
	/* Its arguments are files (report, compare), kept in opts->inputs. */
	bool takes_files;
	/* The options as a whole, once all are parsed: 0, or cli_usage_error()'s value. */
	int (*check)(const struct cli_subcommand *sub, struct options *o);
};

extern const struct cli_subcommand cli_subcommands[];
/* heaptap's exit statuses and what each means; ends with a NULL status. */
struct cli_exit_status {
	const char *status;
	const char *meaning;
};
extern const struct cli_exit_status cli_exit_statuses[];
extern const size_t cli_nr_subcommands;

/* heaptap's options that are valid before and after any subcommand (-v). */
extern const struct argp cli_global_argp;

/* The parse under way: what the option parsers need besides the options. */
struct cli_state {
	struct options *opts;
	const struct cli_subcommand *sub; /* NULL until the subcommand is named */
	int sub_index;			  /* its position in argv */
};

/* cli_cluster.c: the options of agent, collect, report, top --collector, and the checks. */
extern const struct argp_option cli_agent_options[], cli_collect_options[];
/* report's options for a database (heaptap report DB.sqlite). */
#define CLI_REPORT_DB_OPTIONS                                                                \
	{ "run", OPT_RUN, "ID", 0, "DB.sqlite: the run to report (default: the newest)" },   \
	{ "list", OPT_LIST, NULL, 0, "DB.sqlite: list the stored runs: id, job, start, "     \
				     "ranks, hosts" }
#define CLI_TOP_CLUSTER_OPTIONS                                                              \
	{ "collector", OPT_COLLECTOR, "HOST:PORT", 0, "watch the newest run a collector "      \
						      "stores, a row per rank" },                \
	{ "run", OPT_RUN, "ID", 0, "with --collector: that run instead of the newest" },       \
	{ "key", OPT_KEY, "FILE", 0, "with --collector: the collector's shared key" },          \
	{ "munge", OPT_MUNGE, NULL, 0, "with --collector: prove who runs it with a MUNGE "      \
				       "credential (a collect --munge asks for one)" },          \
	{ "munge-socket", OPT_MUNGE_SOCKET, "PATH", 0, "munged's socket (default: libmunge's " \
						      "own); implies --munge" }
error_t cli_parse_cluster_option(struct cli_state *c, int key, char *arg);

/* cli_exports.c: the heap profile exports of run, attach and report. */
#define CLI_EXPORT_OPTIONS                                                                   \
	{ "pprof", OPT_PPROF, "FILE", 0, "also write the allocation stacks as a pprof heap "   \
					 "profile (gzipped profile.proto): go tool pprof FILE" }, \
	{ "folded", OPT_FOLDED, "FILE", 0, "also write the allocation stacks as folded stacks " \
					   "for flame graphs (flamegraph.pl, inferno, "         \
					   "speedscope)" },                                     \
	{ "folded-weight", OPT_FOLDED_WEIGHT, "outstanding|peak|allocated|calls", 0,            \
	  "what --folded weighs: outstanding (default: bytes still allocated at the end), "    \
	  "peak, allocated or calls" }
#define CLI_REPORT_RANK_OPTION                                                               \
	{ "rank", OPT_RANK, "R", 0, "--pprof, --folded, or a database's report: only MPI rank " \
				    "R (default: every process of the report)" }
error_t cli_parse_export_option(struct cli_state *c, int key, char *arg);
int cli_check_exports(const struct cli_subcommand *sub, struct options *o);
int cli_check_agent(const struct cli_subcommand *sub, struct options *o);
int cli_check_collect(const struct cli_subcommand *sub, struct options *o);

/* The argp parser of every subcommand; state->input is a struct cli_state. */
error_t cli_parse_option(int key, char *arg, struct argp_state *state);
/*
 * Print "heaptap: MESSAGE; see heaptap [SUB] --help" as one line; returns EINVAL, for the
 * option parsers to return.
 */
int cli_usage_error(const struct cli_subcommand *sub, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
