// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The man pages' generated parts and the shell completion, from the option tables the
 * parser itself uses (user/cmd/cmd_*.c): an option the parser accepts cannot be missing
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
#include "complete.h"
#include "option_table.h"

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

static void man_synopsis(FILE *out, const struct cli_command *sub)
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

static void man_description(FILE *out, const struct cli_command *sub)
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
	for (size_t i = 0; i < heaptap_nr_commands; i++) {
		const struct cli_command *s = heaptap_commands[i];

		fprintf(out, ".TP\n.BR %s \" \\fR(see \\fBheaptap\\-%s\\fR(%d))\"\n", s->name,
			s->name, s->man_section);
		roff_str(out, s->summary);
		fputs(".\n", out);
	}
}

static int man(const char *name, const char *template, const char *version, const char *date)
{
	const struct cli_command *sub = NULL;
	char line[4096];
	FILE *in, *out = stdout;

	if (strcmp(name, "heaptap")) {
		for (size_t i = 0; i < heaptap_nr_commands; i++) {
			if (!strcmp(heaptap_commands[i]->name, name))
				sub = heaptap_commands[i];
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

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "man"))
		return man(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 2 && !strcmp(argv[1], "bash"))
		return complete_bash(stdout);
	if (argc == 2 && !strcmp(argv[1], "zsh"))
		return complete_zsh(stdout);
	fprintf(stderr, "usage: gendoc man SUBCOMMAND|heaptap TEMPLATE VERSION DATE\n"
			"       gendoc bash|zsh\n");
	return 2;
}
