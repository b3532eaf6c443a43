// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The command line: heaptap's global options, the subcommand, then the subcommand's own
 * argp, its parser the subcommand's (cli.h). Before argp parses a part, every option in it
 * is checked against that part's table, so an option of another subcommand (run -d) or a
 * missing argument is one line and exit status 2, never getopt's two lines or a silent
 * default.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "cli_suggest.h"
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

int cli_usage_error(const struct cli_command *sub, const char *fmt, ...)
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
static void list_subcommands(const struct cli_state *c,
			     bool (*match)(const struct cli_command *, const char *),
			     const char *opt, const char *conj, char *out, size_t size)
{
	const char *names[16];
	size_t nr = 0, used = 0;

	for (size_t i = 0; i < c->nr_commands && nr < 16; i++) {
		if (!match || match(c->commands[i], opt))
			names[nr++] = c->commands[i]->name;
	}
	out[0] = '\0';
	for (size_t i = 0; i < nr && used < size; i++)
		used += snprintf(out + used, size - used, "%s%s",
				 !i ? "" : i + 1 < nr ? ", " : conj, names[i]);
}

/* Does sub have the option the user typed (-d, --duration)? */
static bool has_option(const struct cli_command *sub, const char *opt)
{
	const struct argp_option *tables[] = { sub->options, NULL };
	bool ambiguous;

	if (opt[1] == '-')
		return find_long(tables, opt + 2, strlen(opt + 2), &ambiguous) != NULL;
	return find_short(tables, opt[1]) != NULL;
}

/* The long option of tables (NULL-terminated) that the long option opt likely meant. */
static const char *likely_option(const struct argp_option *const tables[], const char *opt)
{
	const char *best = NULL;
	size_t distance = 0;

	if (strncmp(opt, "--", 2))
		return NULL;
	for (int t = 0; tables[t]; t++) {
		for (const struct argp_option *o = tables[t]; !option_is_end(o); o++) {
			if (o->name && !(o->flags & OPTION_HIDDEN))
				cli_suggest(opt + 2, o->name, &best, &distance);
		}
	}
	return best;
}

static int unknown_option(const struct cli_state *c, const struct cli_command *sub,
			  const char *opt)
{
	const struct argp_option *const tables[] = {
		global_options, argp_builtin_options, sub ? sub->options : NULL, NULL,
	};
	const char *meant = likely_option(tables, opt);
	char subs[128];

	list_subcommands(c, has_option, opt, " and ", subs, sizeof(subs));
	if (!sub && subs[0])
		return cli_usage_error(NULL, "%s is an option of %s: put it after the subcommand",
				       opt, subs);
	if (!sub && meant)
		return cli_usage_error(NULL, "unknown option %s (did you mean --%s?)", opt, meant);
	if (!sub)
		return cli_usage_error(NULL, "unknown option %s", opt);
	if (subs[0])
		return cli_usage_error(sub, "%s has no option %s (an option of %s)", sub->name, opt,
				       subs);
	if (meant)
		return cli_usage_error(sub, "%s has no option %s (did you mean --%s?)", sub->name,
				       opt, meant);
	return cli_usage_error(sub, "%s has no option %s", sub->name, opt);
}

static error_t parse_global(int key, char *arg, struct argp_state *state)
{
	struct cli_state *c = state->input;

	(void)arg;
	if (key != 'v')
		return ARGP_ERR_UNKNOWN;
	c->verbose = true;
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
	const char *meant = NULL;
	size_t distance = 0;
	char names[128];

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = c;
		return 0;
	case ARGP_KEY_ARG:
		for (size_t i = 0; i < c->nr_commands; i++) {
			if (strcmp(arg, c->commands[i]->name))
				continue;
			c->sub = c->commands[i];
			c->sub_index = state->next - 1;
			state->next = state->argc; /* the rest is the subcommand's */
			return 0;
		}
		for (size_t i = 0; i < c->nr_commands; i++)
			cli_suggest(arg, c->commands[i]->name, &meant, &distance);
		if (meant)
			return cli_usage_error(NULL, "unknown subcommand '%s' (did you mean '%s'?)",
					       arg, meant);
		list_subcommands(c, NULL, NULL, " or ", names, sizeof(names));
		return cli_usage_error(NULL, "unknown subcommand '%s': %s", arg, names);
	case ARGP_KEY_END:
		list_subcommands(c, NULL, NULL, " or ", names, sizeof(names));
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
	const struct cli_state *c = input;
	char *out = NULL;
	size_t size = 0;
	FILE *f;

	if ((key != ARGP_KEY_HELP_PRE_DOC && key != ARGP_KEY_HELP_POST_DOC) || !c ||
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
	for (size_t i = 0; i < c->nr_commands; i++)
		fprintf(f, "  %-8s %s\n", c->commands[i]->name, c->commands[i]->summary);
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
 * A file option's argument that starts with '-' is an option taken for a file name (run
 * --json -- true would write the report to a file named "--"): refused, with the way to
 * name such a file. 0, or cli_usage_error()'s value.
 */
static int check_file_argument(const struct cli_command *sub, const struct argp_option *o,
			       const char *shown, const char *value)
{
	if (!o->arg || (!strstr(o->arg, "FILE") && !strstr(o->arg, "PATH")) || value[0] != '-')
		return 0;
	return cli_usage_error(sub, "%s takes a %s, not '%s' (for a file named so, write ./%s)",
			       shown, o->arg, value, value);
}

/*
 * Check argv[1..argc) the way getopt will read it with sub's options (NULL: heaptap's
 * own, before the subcommand). Stops where options end: "--", or the first argument
 * when a command follows it. 0, or cli_usage_error()'s value.
 */
static int check_options(const struct cli_state *c, const struct cli_command *sub, int argc,
			 char **argv)
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
				return unknown_option(c, sub, shown);
			if (!o->arg && a[2 + len] == '=')
				return cli_usage_error(sub, "--%s takes no argument", o->name);
			if (needs_argument(o) && !a[2 + len] && ++i >= argc)
				return cli_usage_error(sub, "--%s needs an argument (%s)", o->name,
						       o->arg);
			snprintf(shown, sizeof(shown), "--%s", o->name);
			if (needs_argument(o) &&
			    check_file_argument(sub, o, shown, a[2 + len] ? a + 3 + len : argv[i]))
				return EINVAL;
			continue;
		}
		for (const char *p = a + 1; *p; p++) {
			snprintf(shown, sizeof(shown), "-%c", *p);
			o = find_short(tables, *p);
			if (!o)
				return unknown_option(c, sub, shown);
			if (!needs_argument(o))
				continue;
			/* The rest of the word, or the next word, is its argument. */
			if (!p[1] && ++i >= argc)
				return cli_usage_error(sub, "%s needs an argument (%s)", shown,
						       o->arg);
			if (check_file_argument(sub, o, shown, p[1] ? p + 1 : argv[i]))
				return EINVAL;
			break;
		}
	}
	return 0;
}

/* The subcommand's argp parser: its own parser, and what every subcommand does alike. */
static error_t parse_sub(int key, char *arg, struct argp_state *state)
{
	struct cli_state *c = state->input;
	error_t err;

	if (key == ARGP_KEY_INIT)
		state->child_inputs[0] = c; /* the global options */
	c->argp = state;
	err = c->sub->parse(c, key, arg);
	if (err != ARGP_ERR_UNKNOWN)
		return err;
	if (key == ARGP_KEY_ARG)
		return cli_usage_error(c->sub, "%s takes no argument, and '%s' is not an option",
				       c->sub->name, arg);
	return key == ARGP_KEY_INIT || key == ARGP_KEY_END ? 0 : ARGP_ERR_UNKNOWN;
}

int cli_parse(int argc, char **argv, const struct cli_command *const *commands, size_t nr,
	      struct cli_parsed *out)
{
	struct cli_state c = { .commands = commands, .nr_commands = nr };
	static char prog[64]; /* argp's program name: one parse at a time */
	const struct cli_command *sub;
	struct argp argp = {};
	int sub_argc;
	char **sub_argv;

	*out = (struct cli_parsed){};
	if (check_options(&c, NULL, argc, argv) ||
	    argp_parse(&top_argp, argc, argv, ARGP_IN_ORDER, NULL, &c))
		return EXIT_USAGE;
	sub = c.sub;
	c.opts = calloc(1, sub->opts_size ? sub->opts_size : 1);
	if (!c.opts) {
		cli_usage_error(NULL, "%s", "out of memory");
		return EXIT_USAGE;
	}
	out->command = sub;
	out->opts = c.opts;
	sub_argc = argc - c.sub_index;
	sub_argv = argv + c.sub_index;
	/* argp names the program by argv[0]: "Usage: heaptap run ...". */
	snprintf(prog, sizeof(prog), "heaptap %s", sub->name);
	sub_argv[0] = prog;
	argp.options = sub->options;
	argp.parser = parse_sub;
	argp.args_doc = sub->args_doc;
	argp.doc = sub->doc;
	argp.children = global_children;
	if (check_options(&c, sub, sub_argc, sub_argv) ||
	    argp_parse(&argp, sub_argc, sub_argv, sub->command_follows ? ARGP_IN_ORDER : 0, NULL,
		       &c))
		return EXIT_USAGE;
	out->verbose = c.verbose;
	return EXIT_OK;
}

void cli_free(struct cli_parsed *p)
{
	if (p->opts && p->command->free)
		p->command->free(p->opts);
	free(p->opts);
	*p = (struct cli_parsed){};
}
