/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The command line's machinery: heaptap's global options, the subcommand named, then its
 * options, parsed by the subcommand's own parser from its own table (user/cmd/cmd_NAME.c)
 * into its own options struct. Before argp parses a part, every option in it is checked
 * against that part's table, so an option of another subcommand (run -d) or a missing
 * argument is one line and exit status 2. The tables are the one place an option is
 * described: --help, the man pages and the shell completion (tools/man/gendoc.c) are all
 * made from them.
 */
#ifndef HEAPTAP_CLI_H
#define HEAPTAP_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "exit_status.h"

/*
 * Keys of the options without a short form. Each shared group of options has its range
 * (cli_trace.h, cli_outputs.h, cli_cluster.h); a subcommand's own start at CLI_OWN_KEYS,
 * in its own file's enum.
 */
enum {
	CLI_TRACE_KEYS = 0x100,
	CLI_OUTPUT_KEYS = 0x140,
	CLI_CLUSTER_KEYS = 0x180,
	CLI_OWN_KEYS = 0x200,
};

struct cli_state;

/*
 * A subcommand, as user/cmd/cmd_NAME.c describes it; user/cmd/command_list.c lists them.
 *
 * What an option's argument is, as its table writes it (arg): the man pages and the shell
 * completion read it from there. Lower-case words separated by '|' are the only values it
 * takes ("entry|caller"); a name with PID in it takes process ids; with FILE, PATH, .json
 * or .sqlite in it a file; anything else (N, SECONDS, HOST:PORT) is typed by hand.
 */
struct cli_command {
	const char *name;
	const char *summary; /* its line in heaptap --help, its man page's NAME */
	int man_section;     /* its man page: heaptap-NAME(8) traces, (1) reads files */
	const struct argp_option *options;
	const char *args_doc;
	const char *doc;
	/*
	 * The first argument that is not an option starts a command whose own options follow
	 * (run, top): heaptap's options end there. Else arguments and options may mix.
	 */
	bool command_follows;
	/* Its arguments are files (report, compare): for the shell completion. */
	bool takes_files;
	size_t opts_size; /* its options struct, which cli_parse allocates zeroed */
	/*
	 * Its parser, c->opts its options struct: ARGP_KEY_INIT (set the defaults), each key
	 * of its table, each argument (ARGP_KEY_ARG; ARGP_ERR_UNKNOWN: it takes none), then
	 * ARGP_KEY_END (check the options as a whole). 0, ARGP_ERR_UNKNOWN, or
	 * cli_usage_error()'s value.
	 */
	error_t (*parse)(struct cli_state *c, int key, char *arg);
	void (*free)(void *opts); /* what parse allocated in opts; NULL: nothing */
	int (*run)(const void *opts); /* heaptap's exit status */
};

/* The parse under way, as a subcommand's parser sees it. */
struct cli_state {
	const struct cli_command *sub; /* NULL until the subcommand is named */
	void *opts;		       /* its options struct */
	struct argp_state *argp;       /* argp's parse of the subcommand's words */
	/* cli.c's own: */
	const struct cli_command *const *commands;
	size_t nr_commands;
	int sub_index; /* the subcommand's position in argv */
	bool verbose;
};

/* What cli_parse found: the subcommand, its options, the global -v. */
struct cli_parsed {
	const struct cli_command *command;
	void *opts;
	bool verbose;
};

/*
 * Parse argv: global options, a subcommand of commands[0..nr), its options. EXIT_OK, or
 * EXIT_USAGE after one line on standard error. --help, --usage and --version print and
 * exit(0). A command (run, top --follow) points into argv; argv[i] of the subcommand's
 * name is replaced by "heaptap NAME" for argp's messages.
 */
int cli_parse(int argc, char **argv, const struct cli_command *const *commands, size_t nr,
	      struct cli_parsed *out);
void cli_free(struct cli_parsed *p);

/*
 * Print "heaptap: MESSAGE; see heaptap [SUB] --help" as one line; returns EINVAL, for the
 * option parsers to return.
 */
int cli_usage_error(const struct cli_command *sub, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Values many options take (cli_values.c). 0, or cli_usage_error()'s value. */
/* A number of seconds, min or more: "OPT wants a number of seconds". */
int cli_parse_seconds(const struct cli_state *c, const char *opt, const char *arg,
		      double min, double *out);
/* -n COUNT: a positive count. */
int cli_parse_count(const struct cli_state *c, const char *arg, long *out);
/* -p PID[,PID...], appended to *pids; a PID named twice is kept once. */
int cli_add_pids(const struct cli_state *c, const char *list, pid_t **pids, size_t *nr);
/* A file named as an argument (report, compare), appended to *files. */
int cli_add_file(const struct cli_state *c, const char *arg, const char ***files, size_t *nr);
/* The argument arg, the first that is not an option, starts the command (run, top). */
int cli_take_command(struct cli_state *c, char ***command);

/* For the man pages: heaptap's exit statuses and what each means; ends with a NULL one. */
struct cli_exit_status {
	const char *status;
	const char *meaning;
};
extern const struct cli_exit_status cli_exit_statuses[];
/* heaptap's options that are valid before and after any subcommand (-v). */
extern const struct argp cli_global_argp;

#endif
