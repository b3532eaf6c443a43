// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Shell completion from the option tables: bash (a function and the words of each
 * subcommand) and zsh (_arguments specs). What an option's argument is comes from how its
 * table writes it (arg_kind): fixed values, PIDs, files, or typed by hand.
 */
#include <stdio.h>
#include <string.h>
#include "complete.h"
#include "option_table.h"

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
	"\t\tlocal var=_heaptap_options_${sub//-/_}\n"
	"\t\tCOMPREPLY=($(compgen -W \"${!var} $_heaptap_global\" -- \"$cur\"))\n"
	"\telif [[ \" $_heaptap_take_files \" == *\" $sub \"* ]]; then\n"
	"\t\tcompopt -o filenames 2>/dev/null\n"
	"\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"\tfi\n"
	"\treturn 0\n"
	"}\n"
	"complete -F _heaptap heaptap\n";

int complete_bash(FILE *out)
{
	const char *cases = strstr(bash_body, "@ARG_CASES@");

	fputs("# bash completion for heaptap -*- shell-script -*-\n"
	      "# Generated from heaptap's option tables (user/cmd/cmd_*.c) by tools/man/gendoc.c.\n"
	      "\n_heaptap_subcommands='", out);
	for (size_t i = 0; i < heaptap_nr_commands; i++)
		fprintf(out, "%s%s", i ? " " : "", heaptap_commands[i]->name);
	fputs("'\n_heaptap_global='", out);
	bash_words(out, cli_global_argp.options);
	bash_words(out, builtin_options);
	fputs("'\n_heaptap_command_follows='", out);
	for (size_t i = 0; i < heaptap_nr_commands; i++) {
		if (heaptap_commands[i]->command_follows)
			fprintf(out, " %s", heaptap_commands[i]->name);
	}
	/* report and compare read files; sites reads one (its args_doc says FILE). */
	fputs("'\n_heaptap_take_files='", out);
	for (size_t i = 0; i < heaptap_nr_commands; i++) {
		const struct cli_command *s = heaptap_commands[i];

		if (s->takes_files || (!s->command_follows && strstr(s->args_doc, "FILE")))
			fprintf(out, " %s", s->name);
	}
	fputs("'\n", out);
	for (size_t i = 0; i < heaptap_nr_commands; i++) {
		/* A shell variable's name: store-migrate's is _heaptap_options_store_migrate. */
		fputs("_heaptap_options_", out);
		for (const char *c = heaptap_commands[i]->name; *c; c++)
			fputc(*c == '-' ? '_' : *c, out);
		fputs("='", out);
		bash_words(out, heaptap_commands[i]->options);
		fputs("'\n", out);
	}
	fwrite(bash_body, 1, cases - bash_body, out);
	for (size_t i = 0; i < heaptap_nr_commands; i++)
		bash_arg_cases(out, heaptap_commands[i]->name, heaptap_commands[i]->options);
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
		/* -a+: its argument in the word or the next; --json=: after '=' or the next. */
		if (short_opt)
			fprintf(out, "-%c%s%s", o->key, kind != ARG_NONE ? "+" : "",
				both ? "," : "");
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

int complete_zsh(FILE *out)
{

	fputs("#compdef heaptap\n"
	      "# zsh completion for heaptap. Generated from heaptap's option tables\n"
	      "# (user/cmd/cmd_*.c) by tools/man/gendoc.c.\n\n"
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
	for (size_t i = 0; i < heaptap_nr_commands; i++) {
		fprintf(out, " \\\n\t\t\t'%s:", heaptap_commands[i]->name);
		zsh_quoted(out, heaptap_commands[i]->summary, ":\\");
		fputc('\'', out);
	}
	fputs(")\n"
	      "\t\t_describe -t subcommands 'heaptap subcommand' subcommands && ret=0\n"
	      "\t\t;;\n"
	      "\targument)\n"
	      "\t\tcurcontext=${curcontext%:*:*}:heaptap-$words[1]:\n"
	      "\t\tcase $words[1] in\n", out);
	for (size_t i = 0; i < heaptap_nr_commands; i++) {
		const struct cli_command *s = heaptap_commands[i];

		fprintf(out, "\t\t%s)\n\t\t\t_arguments -S -s $global", s->name);
		zsh_option_specs(out, s->options);
		/* What follows the options: a command and its words, files, a file. */
		if (s->command_follows)
			fputs(" \\\n\t\t'(-):command: _command_names -e' "
			      "'*::argument: _normal'",
			      out);
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

