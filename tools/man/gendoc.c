// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The man pages' generated parts and the shell completion, from the option tables the
 * parser itself uses (user/cli_table.h): an option the parser accepts cannot be missing
 * from its page or from the completion.
 *
 *   gendoc man SUBCOMMAND|heaptap TEMPLATE VERSION DATE   the page, on standard output
 *   gendoc bash                                           bash completion
 *   gendoc zsh                                            zsh completion (_heaptap)
 *
 * A template is roff written by hand with lines that are only a placeholder: @TH@, @NAME@,
 * @SYNOPSIS@, @DESCRIPTION@ (the subcommand's doc), @OPTIONS@, @SUBCOMMANDS@,
 * @EXIT_STATUS@.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_table.h"

/* What an option's argument is (cli_table.h says how its table writes it). */
enum arg_kind { ARG_NONE, ARG_TYPED, ARG_CHOICE, ARG_PID, ARG_FILE };

static enum arg_kind arg_kind(const struct argp_option *o)
{
	const char *a = o->arg;
	bool words = true;

	if (!a)
		return ARG_NONE;
	for (const char *p = a; *p; p++) {
		if (!islower((unsigned char)*p) && *p != '_' && *p != '|')
			words = false;
	}
	if (words)
		return ARG_CHOICE;
	if (strstr(a, "PID"))
		return ARG_PID;
	if (strstr(a, "FILE") || strstr(a, "PATH") || strstr(a, ".json") || strstr(a, ".sqlite"))
		return ARG_FILE;
	return ARG_TYPED;
}

static bool is_end(const struct argp_option *o)
{
	return !o->name && !o->key && !o->doc && !o->group;
}

static bool has_short(const struct argp_option *o)
{
	return o->key > 0 && o->key <= 0x7f && isprint(o->key) && !(o->flags & OPTION_DOC);
}

/* Text into roff: backslashes, hyphens, and a line that would start a request. */
static void roff(FILE *out, const char *text, size_t len)
{
	bool line_start = true;

	for (size_t i = 0; i < len && text[i]; i++) {
		char c = text[i];

		if (line_start && (c == '.' || c == '\''))
			fputs("\\&", out);
		line_start = c == '\n';
		if (c == '\\')
			fputs("\\e", out);
		else if (c == '-')
			fputs("\\-", out);
		else
			fputc(c, out);
	}
}

static void roff_str(FILE *out, const char *text)
{
	roff(out, text, strlen(text));
}

/* One paragraph per line of text (argp's docs: '\n' breaks a line). */
static void roff_paragraphs(FILE *out, const char *text, size_t len)
{
	while (len) {
		const char *nl = memchr(text, '\n', len);
		size_t n = nl ? (size_t)(nl - text) : len;

		if (n) {
			fputs(".PP\n", out);
			roff(out, text, n);
			fputc('\n', out);
		}
		if (!nl)
			break;
		len -= n + 1;
		text += n + 1;
	}
}

/* "-a, --attribution=entry|caller": the tag of one option and its aliases. */
static void option_tag(FILE *out, const struct argp_option *o)
{
	const struct argp_option *first = o;
	bool any = false;

	do {
		if (o->flags & OPTION_HIDDEN)
			continue;
		if (has_short(o)) {
			fprintf(out, "%s\\fB\\-%c\\fR", any ? ", " : "", o->key);
			any = true;
		}
		if (o->name) {
			fprintf(out, "%s\\fB\\-\\-", any ? ", " : "");
			roff_str(out, o->name);
			fputs("\\fR", out);
			any = true;
		}
	} while ((++o)->flags & OPTION_ALIAS && !is_end(o));
	if (first->arg) {
		bool optional = first->flags & OPTION_ARG_OPTIONAL;

		fputs(optional ? "[=" : "=", out);
		/* Fixed values in bold, the others a name to replace (italic). */
		fputs(arg_kind(first) == ARG_CHOICE ? "\\fB" : "\\fI", out);
		roff_str(out, first->arg);
		fputs(optional ? "\\fR]" : "\\fR", out);
	}
}

static void man_options(FILE *out, const struct argp_option *options)
{
	for (const struct argp_option *o = options; !is_end(o); o++) {
		if (o->flags & (OPTION_HIDDEN | OPTION_ALIAS))
			continue;
		if (!o->name && !o->key && o->doc) {
			/* A group's header: "Global options (...):" */
			fputs(".SS \"", out);
			roff(out, o->doc, strcspn(o->doc, ":"));
			fputs("\"\n", out);
			continue;
		}
		fputs(".TP\n", out);
		option_tag(out, o);
		fputc('\n', out);
		if (o->doc) {
			roff_str(out, o->doc);
			fputs(".\n", out);
		}
	}
}

/* The options argp adds to every subcommand. */
static const struct argp_option builtin_options[] = {
	{ "help", '?', NULL, 0, "print the options and exit" },
	{ "usage", -3, NULL, 0, "print a short usage message and exit" },
	{ "version", 'V', NULL, 0, "print heaptap's version, libbpf's, and the kernel features "
				   "heaptap needs that this machine has, and exit" },
	{},
};

static void man_global_options(FILE *out)
{
	man_options(out, cli_global_argp.options);
	man_options(out, builtin_options);
}

static void upper(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(toupper((unsigned char)*s), out);
}

static void man_synopsis(FILE *out, const struct cli_subcommand *sub)
{
	const char *line = sub ? sub->args_doc : "SUBCOMMAND [OPTION...] [ARG...]";

	fputs(".SH SYNOPSIS\n", out);
	while (line && *line) {
		size_t n = strcspn(line, "\n");

		fprintf(out, ".B heaptap%s%s\n", sub ? " " : "", sub ? sub->name : "");
		fputs("[\\fIOPTION\\fR...]\n", out);
		roff(out, line, n);
		fputs("\n.br\n", out);
		line += n + (line[n] == '\n');
	}
}

static void man_description(FILE *out, const struct cli_subcommand *sub)
{
	const char *vt = strchr(sub->doc, '\v');

	fputs(".SH DESCRIPTION\n", out);
	roff_paragraphs(out, sub->doc, vt ? (size_t)(vt - sub->doc) : strlen(sub->doc));
	if (vt)
		roff_paragraphs(out, vt + 1, strlen(vt + 1));
}

static void man_exit_status(FILE *out)
{
	fputs(".SH EXIT STATUS\n", out);
	for (const struct cli_exit_status *e = cli_exit_statuses; e->status; e++) {
		fprintf(out, ".TP\n.B %s\n", e->status);
		roff_str(out, e->meaning);
		fputs(".\n", out);
	}
}

static void man_subcommands(FILE *out)
{
	fputs(".SH SUBCOMMANDS\n", out);
	for (size_t i = 0; i < cli_nr_subcommands; i++) {
		const struct cli_subcommand *s = &cli_subcommands[i];

		fprintf(out, ".TP\n.BR %s \" \\fR(see \\fBheaptap\\-%s\\fR(%d))\"\n", s->name,
			s->name, s->man_section);
		roff_str(out, s->summary);
		fputs(".\n", out);
	}
}

static int man(const char *name, const char *template, const char *version, const char *date)
{
	const struct cli_subcommand *sub = NULL;
	char line[4096];
	FILE *in, *out = stdout;

	if (strcmp(name, "heaptap")) {
		for (size_t i = 0; i < cli_nr_subcommands; i++) {
			if (!strcmp(cli_subcommands[i].name, name))
				sub = &cli_subcommands[i];
		}
		if (!sub) {
			fprintf(stderr, "gendoc: no subcommand %s\n", name);
			return 1;
		}
	}
	in = fopen(template, "r");
	if (!in) {
		fprintf(stderr, "gendoc: %s: %m\n", template);
		return 1;
	}
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "@TH@")) {
			fputs(".TH \"HEAPTAP", out);
			if (sub) {
				fputc('-', out);
				upper(out, sub->name);
			}
			fprintf(out, "\" \"%d\" \"%s\" \"heaptap %s\" \"heaptap manual\"\n",
				sub ? sub->man_section : 8, date, version);
		} else if (!strcmp(line, "@NAME@")) {
			fputs(".SH NAME\n", out);
			if (sub) {
				fprintf(out, "heaptap\\-%s \\- ", sub->name);
				roff_str(out, sub->summary);
			} else {
				fputs("heaptap \\- trace a process's dynamic memory from outside, "
				      "with eBPF", out);
			}
			fputc('\n', out);
		} else if (!strcmp(line, "@SYNOPSIS@")) {
			man_synopsis(out, sub);
		} else if (!strcmp(line, "@DESCRIPTION@") && sub) {
			man_description(out, sub);
		} else if (!strcmp(line, "@OPTIONS@")) {
			fputs(".SH OPTIONS\n", out);
			if (sub)
				man_options(out, sub->options);
			man_global_options(out);
		} else if (!strcmp(line, "@SUBCOMMANDS@")) {
			man_subcommands(out);
		} else if (!strcmp(line, "@EXIT_STATUS@")) {
			man_exit_status(out);
		} else if (line[0] == '@') {
			fprintf(stderr, "gendoc: %s: unknown placeholder %s\n", template, line);
			fclose(in);
			return 1;
		} else {
			fprintf(out, "%s\n", line);
		}
	}
	fclose(in);
	return ferror(out) ? 1 : 0;
}

/* Every option of a table, as words: "-a --attribution --json ...". */
static void bash_words(FILE *out, const struct argp_option *options)
{
	for (const struct argp_option *o = options; !is_end(o); o++) {
		if (o->flags & OPTION_HIDDEN || (!o->name && !has_short(o)))
			continue;
		/* -? would be a glob in the completion's word lists: --help says it. */
		if (has_short(o) && o->key != '?')
			fprintf(out, " -%c", o->key);
		if (o->name)
			fprintf(out, " --%s", o->name);
	}
}

/* The case arms that say what each option's argument is: "run:--json) k=file ;;". */
static void bash_arg_cases(FILE *out, const char *sub, const struct argp_option *options)
{
	for (const struct argp_option *o = options; !is_end(o); o++) {
		static const char *const kinds[] = { "", "typed", "choice", "pid", "file" };
		enum arg_kind kind = arg_kind(o);

		if (o->flags & OPTION_HIDDEN || kind == ARG_NONE)
			continue;
		fputs("\t", out);
		if (has_short(o))
			fprintf(out, "%s:-%c%s", sub, o->key, o->name ? "|" : "");
		if (o->name)
			fprintf(out, "%s:--%s", sub, o->name);
		fprintf(out, ") k=%s", kinds[kind]);
		if (kind == ARG_CHOICE) {
			fputs(" w='", out);
			for (const char *p = o->arg; *p; p++)
				fputc(*p == '|' ? ' ' : *p, out);
			fputc('\'', out);
		}
		fputs(" ;;\n", out);
	}
}

static const char bash_body[] =
	"\n"
	"# _heaptap_arg SUBCOMMAND OPTION: k= what its argument is (none: it takes none), w= its\n"
	"# values when they are fixed.\n"
	"_heaptap_arg()\n"
	"{\n"
	"\tk=none w=\n"
	"\tcase \"$1:$2\" in\n"
	"@ARG_CASES@"
	"\tesac\n"
	"}\n"
	"\n"
	"_heaptap()\n"
	"{\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} sub= opt= i w k w0 start=0\n"
	"\tCOMPREPLY=()\n"
	"\t# The subcommand, the words its options take, and where a traced COMMAND starts.\n"
	"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
	"\t\tw0=${COMP_WORDS[i]}\n"
	"\t\tif [[ -z $sub ]]; then\n"
	"\t\t\tcase $w0 in\n"
	"\t\t\t-*) continue ;;\n"
	"\t\t\tesac\n"
	"\t\t\t[[ \" $_heaptap_subcommands \" == *\" $w0 \"* ]] || return 0\n"
	"\t\t\tsub=$w0\n"
	"\t\t\tcontinue\n"
	"\t\tfi\n"
	"\t\tcase $w0 in\n"
	"\t\t--)\n"
	"\t\t\tstart=$((i + 1))\n"
	"\t\t\tbreak ;;\n"
	"\t\t--*=*)\n"
	"\t\t\tcontinue ;;\n"
	"\t\t--* | -?)\n"
	"\t\t\t;; # it may take the next word\n"
	"\t\t-*)\n"
	"\t\t\tcontinue ;; # -p123, -vb: an argument would be in the word\n"
	"\t\t*)\n"
	"\t\t\tif [[ \" $_heaptap_command_follows \" == *\" $sub \"* ]]; then\n"
	"\t\t\t\tstart=$i\n"
	"\t\t\t\tbreak\n"
	"\t\t\tfi\n"
	"\t\t\tcontinue ;;\n"
	"\t\tesac\n"
	"\t\t# An option that takes an argument takes the next word (after '=' too).\n"
	"\t\t_heaptap_arg \"$sub\" \"$w0\"\n"
	"\t\tif [[ $k != none ]]; then\n"
	"\t\t\t[[ ${COMP_WORDS[i + 1]} == = ]] && ((i++))\n"
	"\t\t\t((i++))\n"
	"\t\tfi\n"
	"\tdone\n"
	"\tif ((start)); then\n"
	"\t\tif declare -F _command_offset >/dev/null; then\n"
	"\t\t\t_command_offset \"$start\"\n"
	"\t\telif ((start == COMP_CWORD)); then\n"
	"\t\t\tCOMPREPLY=($(compgen -c -- \"$cur\" | sort -u))\n"
	"\t\telse\n"
	"\t\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"\t\tfi\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\t# The argument of the option before: \"--json FILE\", \"--unwind=fp\".\n"
	"\topt=${COMP_WORDS[COMP_CWORD - 1]}\n"
	"\t[[ $opt == = ]] && opt=${COMP_WORDS[COMP_CWORD - 2]}\n"
	"\tif [[ -n $sub && $opt == -* ]]; then\n"
	"\t\t_heaptap_arg \"$sub\" \"$opt\"\n"
	"\t\tcase $k in\n"
	"\t\tchoice)\n"
	"\t\t\tCOMPREPLY=($(compgen -W \"$w\" -- \"$cur\"))\n"
	"\t\t\treturn 0 ;;\n"
	"\t\tpid)\n"
	"\t\t\t# A list: complete its last item.\n"
	"\t\t\tlocal head=\n"
	"\t\t\t[[ $cur == *,* ]] && head=${cur%,*},\n"
	"\t\t\tCOMPREPLY=($(compgen -P \"$head\" -W \"$(cd /proc && printf '%s ' [0-9]*)\" \\\n"
	"\t\t\t\t-- \"${cur##*,}\"))\n"
	"\t\t\treturn 0 ;;\n"
	"\t\tfile)\n"
	"\t\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"\t\t\treturn 0 ;;\n"
	"\t\ttyped)\n"
	"\t\t\treturn 0 ;;\n"
	"\t\tesac\n"
	"\tfi\n"
	"\tif [[ -z $sub ]]; then\n"
	"\t\tif [[ $cur == -* ]]; then\n"
	"\t\t\tCOMPREPLY=($(compgen -W \"$_heaptap_global\" -- \"$cur\"))\n"
	"\t\telse\n"
	"\t\t\tCOMPREPLY=($(compgen -W \"$_heaptap_subcommands\" -- \"$cur\"))\n"
	"\t\tfi\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tif [[ $cur == -* ]]; then\n"
	"\t\tlocal var=_heaptap_options_$sub\n"
	"\t\tCOMPREPLY=($(compgen -W \"${!var} $_heaptap_global\" -- \"$cur\"))\n"
	"\telif [[ \" $_heaptap_take_files \" == *\" $sub \"* ]]; then\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"\tfi\n"
	"\treturn 0\n"
	"}\n"
	"complete -F _heaptap heaptap\n";

static int bash(void)
{
	FILE *out = stdout;
	const char *cases = strstr(bash_body, "@ARG_CASES@");

	fputs("# bash completion for heaptap -*- shell-script -*-\n"
	      "# Generated from heaptap's option tables (user/cli_table.h) by tools/man/gendoc.c.\n"
	      "\n_heaptap_subcommands='", out);
	for (size_t i = 0; i < cli_nr_subcommands; i++)
		fprintf(out, "%s%s", i ? " " : "", cli_subcommands[i].name);
	fputs("'\n_heaptap_global='", out);
	bash_words(out, cli_global_argp.options);
	bash_words(out, builtin_options);
	fputs("'\n_heaptap_command_follows='", out);
	for (size_t i = 0; i < cli_nr_subcommands; i++) {
		if (cli_subcommands[i].command_follows)
			fprintf(out, " %s", cli_subcommands[i].name);
	}
	/* report and compare read files; sites reads one (its args_doc says FILE). */
	fputs("'\n_heaptap_take_files='", out);
	for (size_t i = 0; i < cli_nr_subcommands; i++) {
		const struct cli_subcommand *s = &cli_subcommands[i];

		if (s->takes_files || (!s->command_follows && strstr(s->args_doc, "FILE")))
			fprintf(out, " %s", s->name);
	}
	fputs("'\n", out);
	for (size_t i = 0; i < cli_nr_subcommands; i++) {
		fprintf(out, "_heaptap_options_%s='", cli_subcommands[i].name);
		bash_words(out, cli_subcommands[i].options);
		fputs("'\n", out);
	}
	fwrite(bash_body, 1, cases - bash_body, out);
	for (size_t i = 0; i < cli_nr_subcommands; i++)
		bash_arg_cases(out, cli_subcommands[i].name, cli_subcommands[i].options);
	fputs(cases + strlen("@ARG_CASES@"), out);
	fputs("\n# ex: filetype=sh\n", out);
	return ferror(out) ? 1 : 0;
}

/* Text for a single-quoted zsh word: a quote ends it, is escaped, and starts it again. */
static void zsh_quoted(FILE *out, const char *text, const char *special)
{
	for (; *text; text++) {
		if (*text == '\'')
			fputs("'\\''", out);
		else if (strchr(special, *text))
			fprintf(out, "\\%c", *text);
		else
			fputc(*text, out);
	}
}

/*
 * One _arguments spec per option: "(-a --attribution)"{-a+,--attribution=}"[doc]:arg:action",
 * '*' first for an option that may be repeated (its doc says so).
 */
static void zsh_option_specs(FILE *out, const struct argp_option *options)
{
	for (const struct argp_option *o = options; !is_end(o); o++) {
		enum arg_kind kind = arg_kind(o);
		/* -? would be a glob in the word lists: --help says it. */
		bool short_opt = has_short(o) && o->key != '?';
		bool both = short_opt && o->name;
		bool repeat = o->doc && strstr(o->doc, "repeat");

		if (o->flags & OPTION_HIDDEN || (!o->name && !short_opt))
			continue;
		fputs(" \\\n\t\t'", out);
		if (repeat)
			fputc('*', out);
		else if (both)
			fprintf(out, "(-%c --%s)", o->key, o->name);
		fputs(both ? "'{" : "", out);
		if (short_opt)
			fprintf(out, "-%c%s%s", o->key, kind != ARG_NONE ? "+" : "", both ? "," : "");
		if (o->name)
			fprintf(out, "--%s%s", o->name, kind != ARG_NONE ? "=" : "");
		fputs(both ? "}'[" : "[", out);
		zsh_quoted(out, o->doc ? o->doc : "", "[]\\");
		fputc(']', out);
		if (kind != ARG_NONE) {
			fputc(':', out);
			zsh_quoted(out, o->arg, ":\\");
			fputc(':', out);
			if (kind == ARG_CHOICE) {
				fputc('(', out);
				for (const char *p = o->arg; *p; p++)
					fputc(*p == '|' ? ' ' : *p, out);
				fputc(')', out);
			} else if (kind == ARG_PID) {
				fputs("_sequence _pids", out);
			} else if (kind == ARG_FILE) {
				fputs("_files", out);
			} else {
				fputc(' ', out);
			}
		}
		fputc('\'', out);
	}
}

static int zsh(void)
{
	FILE *out = stdout;

	fputs("#compdef heaptap\n"
	      "# zsh completion for heaptap. Generated from heaptap's option tables\n"
	      "# (user/cli_table.h) by tools/man/gendoc.c.\n\n"
	      "_heaptap() {\n"
	      "\tlocal curcontext=$curcontext state line ret=1\n"
	      "\tlocal -a global=(", out);
	zsh_option_specs(out, cli_global_argp.options);
	zsh_option_specs(out, builtin_options);
	fputs(")\n"
	      "\t_arguments -C $global '1:subcommand:->subcommand' '*::argument:->argument' && "
	      "ret=0\n"
	      "\tcase $state in\n"
	      "\tsubcommand)\n"
	      "\t\tlocal -a subcommands=(", out);
	for (size_t i = 0; i < cli_nr_subcommands; i++) {
		fprintf(out, " \\\n\t\t\t'%s:", cli_subcommands[i].name);
		zsh_quoted(out, cli_subcommands[i].summary, ":\\");
		fputc('\'', out);
	}
	fputs(")\n"
	      "\t\t_describe -t subcommands 'heaptap subcommand' subcommands && ret=0\n"
	      "\t\t;;\n"
	      "\targument)\n"
	      "\t\tcurcontext=${curcontext%:*:*}:heaptap-$words[1]:\n"
	      "\t\tcase $words[1] in\n", out);
	for (size_t i = 0; i < cli_nr_subcommands; i++) {
		const struct cli_subcommand *s = &cli_subcommands[i];

		fprintf(out, "\t\t%s)\n\t\t\t_arguments -S -s $global", s->name);
		zsh_option_specs(out, s->options);
		/* What follows the options: a command and its words, files, a file. */
		if (s->command_follows)
			fputs(" \\\n\t\t'(-):command: _command_names -e' '*::argument: _normal'", out);
		else if (s->takes_files)
			fputs(" \\\n\t\t'*:file:_files'", out);
		else if (strstr(s->args_doc, "FILE"))
			fputs(" \\\n\t\t'1:file:_files'", out);
		fputs(" && ret=0\n\t\t\t;;\n", out);
	}
	fputs("\t\tesac\n"
	      "\t\t;;\n"
	      "\tesac\n"
	      "\treturn ret\n"
	      "}\n\n"
	      "_heaptap \"$@\"\n", out);
	return ferror(out) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "man"))
		return man(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 2 && !strcmp(argv[1], "bash"))
		return bash();
	if (argc == 2 && !strcmp(argv[1], "zsh"))
		return zsh();
	fprintf(stderr, "usage: gendoc man SUBCOMMAND|heaptap TEMPLATE VERSION DATE\n"
			"       gendoc bash|zsh\n");
	return 2;
}
