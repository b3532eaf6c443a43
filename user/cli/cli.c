// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The command line: heaptap's global options, the subcommand, then the subcommand's own
 * argp (cli_subcommands.c). Before argp parses a part, every option in it is checked
 * against that part's table, so an option of another subcommand (run -d) or a missing
 * argument is one line and exit status 2, never getopt's two lines or a silent default.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_table.h"
#include "version.h"

/* heaptap --version: the version, libbpf's, and the kernel features found (version.c). */
static void print_version(FILE *out, struct argp_state *state)
{
	(void)state;
	version_print(out);
}
void (*argp_program_version_hook)(FILE *, struct argp_state *) = print_version;
/* argp's own complaints end like ours (the checks below leave it none to make). */
error_t argp_err_exit_status = EXIT_USAGE;

/* The exit statuses, for heaptap --help and the man pages' EXIT STATUS. */
const struct cli_exit_status cli_exit_statuses[] = {
	{ "0", "success; run exits with COMMAND's own status instead (128+N if signal N "
	       "killed it)" },
	{ "1", "heaptap cannot run here (Linux older than 6.6, not in the initial PID "
	       "namespace), BPF could not be loaded or attached, or a report could not be "
	       "written" },
	{ "2", "a bad command line, or a report file that cannot be opened" },
	{ "3", "a bad target: no such process, a kernel thread, nothing to probe" },
	{ "4", "without the privileges tracing needs: root, or CAP_BPF and CAP_PERFMON to trace "
	       "one's own processes, and besides them CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH and "
	       "CAP_KILL to trace other users' (as the agent does)" },
	{ "5", "some processes could not be traced (the report lists them and why; run: when "
	       "COMMAND itself exited 0)" },
	{ "126", "run: COMMAND exists but cannot be executed" },
	{ "127", "run: COMMAND is not found" },
	{},
};

static const char doc[] =
	"heaptap traces a process's malloc family from outside, with eBPF uprobes, and "
	"reports current/min/max bytes and call counts per thread, library and function. "
	"It needs Linux 6.6 or later, and runs in the initial PID namespace (not inside a "
	"container's)."
	/* The exit statuses follow, from cli_exit_statuses (top_help_filter). */
	"\v";

static const struct argp_option global_options[] = {
	{ NULL, 0, NULL, 0, "Global options (before or after the subcommand):" },
	{ "verbose", 'v', NULL, 0, "show what heaptap and libbpf do" },
	{},
};

/* The options argp adds to every parser (glibc's argp-parse.c), hidden ones included. */
enum { ARGP_USAGE_KEY = -3, ARGP_PROGNAME_KEY = -2, ARGP_HANG_KEY = -4 };
static const struct argp_option argp_builtin_options[] = {
	{ "help", '?', NULL, 0, NULL },
	{ "usage", ARGP_USAGE_KEY, NULL, 0, NULL },
	{ "version", 'V', NULL, 0, NULL },
	{ "program-name", ARGP_PROGNAME_KEY, "NAME", OPTION_HIDDEN, NULL },
	{ "HANG", ARGP_HANG_KEY, "SECS", OPTION_ARG_OPTIONAL | OPTION_HIDDEN, NULL },
	{},
};

int cli_usage_error(const struct cli_subcommand *sub, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("heaptap: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; see heaptap%s%s --help\n", sub ? " " : "", sub ? sub->name : "");
	return EINVAL;
}

static bool option_is_end(const struct argp_option *o)
{
	return !o->name && !o->key && !o->doc && !o->group;
}

static bool option_is_short(const struct argp_option *o, int ch)
{
	return o->key == ch && !(o->flags & OPTION_DOC) && o->key > 0 && o->key <= 0x7f &&
	       isprint(o->key);
}

static bool needs_argument(const struct argp_option *o)
{
	return o->arg && !(o->flags & OPTION_ARG_OPTIONAL);
}

/* The option named ch in tables (NULL-terminated), or NULL. */
static const struct argp_option *find_short(const struct argp_option *const tables[], int ch)
{
	for (int t = 0; tables[t]; t++) {
		for (const struct argp_option *o = tables[t]; !option_is_end(o); o++) {
			if (option_is_short(o, ch))
				return o;
		}
	}
	return NULL;
}

/*
 * The long option name[0..len) names, as getopt_long finds it: the exact name, or the
 * only one it abbreviates. NULL, with *ambiguous when it abbreviates several.
 */
static const struct argp_option *find_long(const struct argp_option *const tables[],
					   const char *name, size_t len, bool *ambiguous)
{
	const struct argp_option *found = NULL;
	int matches = 0;

	*ambiguous = false;
	for (int t = 0; tables[t]; t++) {
		for (const struct argp_option *o = tables[t]; !option_is_end(o); o++) {
			if (!o->name || strncmp(o->name, name, len))
				continue;
			if (!o->name[len])
				return o;
			found = o;
			matches++;
		}
	}
	*ambiguous = matches > 1;
	return matches == 1 ? found : NULL;
}

/* The subcommands that pass match, "run, attach" then conj "top": for messages. */
static void list_subcommands(bool (*match)(const struct cli_subcommand *, const char *),
			     const char *opt, const char *conj, char *out, size_t size)
{
	const char *names[16];
	size_t nr = 0, used = 0;

	for (size_t i = 0; i < cli_nr_subcommands && nr < 16; i++) {
		if (!match || match(&cli_subcommands[i], opt))
			names[nr++] = cli_subcommands[i].name;
	}
	out[0] = '\0';
	for (size_t i = 0; i < nr && used < size; i++)
		used += snprintf(out + used, size - used, "%s%s",
				 !i ? "" : i + 1 < nr ? ", " : conj, names[i]);
}

/* Does sub have the option the user typed (-d, --duration)? */
static bool has_option(const struct cli_subcommand *sub, const char *opt)
{
	const struct argp_option *tables[] = { sub->options, NULL };
	bool ambiguous;

	if (opt[1] == '-')
		return find_long(tables, opt + 2, strlen(opt + 2), &ambiguous) != NULL;
	return find_short(tables, opt[1]) != NULL;
}

static int unknown_option(const struct cli_subcommand *sub, const char *opt)
{
	char subs[128];

	list_subcommands(has_option, opt, " and ", subs, sizeof(subs));
	if (!sub && subs[0])
		return cli_usage_error(NULL, "%s is an option of %s: put it after the subcommand",
				       opt, subs);
	if (!sub)
		return cli_usage_error(NULL, "unknown option %s", opt);
	if (subs[0])
		return cli_usage_error(sub, "%s has no option %s (an option of %s)", sub->name, opt,
				       subs);
	return cli_usage_error(sub, "%s has no option %s", sub->name, opt);
}

static error_t parse_global(int key, char *arg, struct argp_state *state)
{
	struct cli_state *c = state->input;

	(void)arg;
	if (key != 'v')
		return ARGP_ERR_UNKNOWN;
	c->opts->verbose = true;
	return 0;
}

const struct argp cli_global_argp = { global_options, parse_global };

static const struct argp_child global_children[] = {
	{ &cli_global_argp, 0, NULL, 0 },
	{},
};

/* heaptap itself, up to the subcommand's name. */
static error_t parse_top(int key, char *arg, struct argp_state *state)
{
	struct cli_state *c = state->input;
	char names[128];

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = c;
		return 0;
	case ARGP_KEY_ARG:
		for (size_t i = 0; i < cli_nr_subcommands; i++) {
			if (strcmp(arg, cli_subcommands[i].name))
				continue;
			c->sub = &cli_subcommands[i];
			c->sub_index = state->next - 1;
			state->next = state->argc; /* the rest is the subcommand's */
			return 0;
		}
		list_subcommands(NULL, NULL, " or ", names, sizeof(names));
		return cli_usage_error(NULL, "unknown subcommand '%s': %s", arg, names);
	case ARGP_KEY_END:
		list_subcommands(NULL, NULL, " or ", names, sizeof(names));
		if (!c->sub)
			return cli_usage_error(NULL, "name a subcommand: %s", names);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

/* heaptap --help: the subcommands, from the table. */
static char *top_help_filter(int key, const char *text, void *input)
{
	char *out = NULL;
	size_t size = 0;
	FILE *f;

	(void)input;
	if ((key != ARGP_KEY_HELP_PRE_DOC && key != ARGP_KEY_HELP_POST_DOC) ||
	    !(f = open_memstream(&out, &size)))
		return (char *)text;
	if (key == ARGP_KEY_HELP_POST_DOC) {
		fprintf(f, "Exit status:");
		for (const struct cli_exit_status *e = cli_exit_statuses; e->status; e++)
			fprintf(f, " %s %s%s", e->status, e->meaning, e[1].status ? ";" : ".");
		fprintf(f, " man heaptap describes each subcommand, its files and examples.");
		goto done;
	}
	fprintf(f, "%s\n\nSubcommands:\n", text);
	for (size_t i = 0; i < cli_nr_subcommands; i++)
		fprintf(f, "  %-8s %s\n", cli_subcommands[i].name, cli_subcommands[i].summary);
	fprintf(f, "\n'heaptap SUBCOMMAND --help' lists the options of SUBCOMMAND.\n");
done:
	if (fclose(f)) {
		free(out);
		return (char *)text;
	}
	return out;
}

static const struct argp top_argp = {
	NULL, parse_top, "SUBCOMMAND [OPTION...] [ARG...]", doc, global_children, top_help_filter,
};

/*
 * Check argv[1..argc) the way getopt will read it with sub's options (NULL: heaptap's
 * own, before the subcommand). Stops where options end: "--", or the first argument
 * when a command follows it. 0, or cli_usage_error()'s value.
 */
static int check_options(const struct cli_subcommand *sub, int argc, char **argv)
{
	const struct argp_option *const tables[] = {
		global_options, argp_builtin_options, sub ? sub->options : NULL, NULL,
	};
	bool stop_at_argument = !sub || sub->command_follows;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct argp_option *o;
		char shown[64];
		bool ambiguous;

		if (!strcmp(a, "--"))
			return 0;
		if (a[0] != '-' || !a[1]) {
			if (stop_at_argument)
				return 0;
			continue;
		}
		if (a[1] == '-') {
			size_t len = strcspn(a + 2, "=");

			snprintf(shown, sizeof(shown), "--%.*s", (int)len, a + 2);
			o = find_long(tables, a + 2, len, &ambiguous);
			if (ambiguous)
				return cli_usage_error(sub, "%s is ambiguous: write it in full",
						       shown);
			if (!o || (o->flags & OPTION_HIDDEN))
				return unknown_option(sub, shown);
			if (!o->arg && a[2 + len] == '=')
				return cli_usage_error(sub, "--%s takes no argument", o->name);
			if (needs_argument(o) && !a[2 + len] && ++i >= argc)
				return cli_usage_error(sub, "--%s needs an argument (%s)", o->name,
						       o->arg);
			continue;
		}
		for (const char *p = a + 1; *p; p++) {
			snprintf(shown, sizeof(shown), "-%c", *p);
			o = find_short(tables, *p);
			if (!o)
				return unknown_option(sub, shown);
			if (!needs_argument(o))
				continue;
			/* The rest of the word, or the next word, is its argument. */
			if (!p[1] && ++i >= argc)
				return cli_usage_error(sub, "%s needs an argument (%s)", shown,
						       o->arg);
			break;
		}
	}
	return 0;
}

int cli_parse(int argc, char **argv, struct options *opts)
{
	struct cli_state c = { .opts = opts };
	const struct cli_subcommand *sub;
	struct argp argp = {};
	int sub_argc;
	char **sub_argv;

	memset(opts, 0, sizeof(*opts));
	opts->rule = ATTRIBUTE_ENTRY;
	opts->interval = 1.0;
	opts->site_depth = 6;
	opts->table_budget = (struct budget_limits){ TABLE_BUDGET_FILE, TABLE_BUDGET_TOTAL };
	opts->symbol_budget = (struct budget_limits){ SYMBOL_BUDGET_FILE, SYMBOL_BUDGET_TOTAL };
	opts->tree_budget = TREE_BUDGET_ENDED;
	opts->rank = -1;
	if (check_options(NULL, argc, argv) ||
	    argp_parse(&top_argp, argc, argv, ARGP_IN_ORDER, NULL, &c))
		return EXIT_USAGE;
	sub = c.sub;
	opts->cmd = sub->cmd;
	/* Cluster-wide runs: a mode every rank of every job can afford (README). */
	if (sub->cmd == CMD_AGENT)
		opts->sample_bytes = 512 << 10;
	sub_argc = argc - c.sub_index;
	sub_argv = argv + c.sub_index;
	/* argp names the program by argv[0]: "Usage: heaptap run ...". */
	sub_argv[0] = (char *)sub->prog;
	argp.options = sub->options;
	argp.parser = cli_parse_option;
	argp.args_doc = sub->args_doc;
	argp.doc = sub->doc;
	argp.children = global_children;
	if (check_options(sub, sub_argc, sub_argv) ||
	    argp_parse(&argp, sub_argc, sub_argv, sub->command_follows ? ARGP_IN_ORDER : 0, NULL,
		       &c))
		return EXIT_USAGE;
	return EXIT_OK;
}

void cli_free(struct options *opts)
{
	free(opts->pids);
	opts->pids = NULL;
	opts->nr_pids = 0;
	free(opts->inputs);
	opts->inputs = NULL;
	free(opts->allocators);
	opts->allocators = NULL;
	opts->nr_allocators = 0;
	opts->nr_inputs = 0;
}
