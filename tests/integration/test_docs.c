// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What heaptap's users read: every man page renders without a warning and documents
 * every option its subcommand's parser accepts (as --help lists them, from the tables
 * argp parses with), and bash completes subcommands, options, PIDs, files and fixed
 * values as the parser would take them.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"
#include "shell.h"

TestSuite(docs, .timeout = 60);

/* The pages make installs: heaptap(8) and one per subcommand, in its section. */
static const char *const pages[] = {
	"heaptap.8",	    "heaptap-run.8",	 "heaptap-attach.8", "heaptap-top.8",
	"heaptap-agent.8",  "heaptap-collect.8", "heaptap-report.1", "heaptap-compare.1",
	"heaptap-sites.1",  "heaptap-store-migrate.1",
};
#define NR_PAGES (sizeof(pages) / sizeof(pages[0]))

static const char *page_path(const char *page, char *buf, size_t size)
{
	snprintf(buf, size, "%s/man/%s", output_dir(), page);
	cr_assert(access(buf, R_OK) == 0, "%s is missing: build it with make docs", buf);
	return buf;
}

/* The subcommands heaptap --help lists, as "run attach ... " (each followed by a space). */
static char *subcommands(void)
{
	char *out, *list = calloc(1, 1024), *p;

	cr_assert(eq(int, sh(&out, 10, "'%s' --help", heaptap_path()), 0), "%s", out);
	p = strstr(out, "Subcommands:\n");
	cr_assert(p != NULL, "heaptap --help lists no subcommands: %s", out);
	for (p = strchr(p, '\n') + 1; p[0] == ' ' && p[1] == ' '; p = strchr(p, '\n') + 1) {
		size_t n;

		p += strspn(p, " ");
		n = strcspn(p, " ");
		strncat(list, p, n);
		strcat(list, " ");
	}
	free(out);
	cr_assert(strlen(list) > 20, "too few subcommands: '%s'", list);
	return list;
}

/*
 * The options `heaptap SUB --help` lists, one per line: "--json", "-o", ... argp writes
 * each option's line as "  -o, --output=FILE   doc" or "      --json=FILE   doc".
 */
static char *help_options(const char *sub)
{
	char *out, *list = calloc(1, 8192), *line;

	cr_assert(eq(int, sh(&out, 10, "'%s' %s --help", heaptap_path(), sub), 0), "%s", out);
	for (line = out; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char *p = line + strspn(line, " ");

		/* Option lines start at column 2 or 6; their docs' further in, prose at 0. */
		if ((p - line != 2 && p - line != 6) || p[0] != '-')
			continue;
		while (p[0] == '-') {
			size_t n = strcspn(p, ",=[ \n");

			strncat(list, p, n);
			strcat(list, "\n");
			p += n;
			p += strcspn(p, ",\n ");
			if (p[0] != ',')
				break;
			p += 1 + strspn(p + 1, " ");
		}
	}
	free(out);
	return list;
}

/* Is word one of the lines of list? */
static bool has_line(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *l = list; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		if (strcspn(l, "\n") == n && !strncmp(l, word, n))
			return true;
	}
	return false;
}

/* A page rendered as text, 80 columns wide, without bold or underline. */
static char *rendered(const char *page)
{
	char path[512], *out;

	cr_assert(eq(int, sh(&out, 20, "MANWIDTH=80 MAN_KEEP_FORMATTING= man -l '%s' | col -b",
			     page_path(page, path, sizeof(path))),
		     0),
		  "%s", out);
	return out;
}

/* The text of section name (up to the next section's heading), or NULL. */
static char *section(const char *text, const char *name)
{
	char heading[64], *start, *end;

	snprintf(heading, sizeof(heading), "\n%s\n", name);
	start = strstr(text, heading);
	if (!start)
		return NULL;
	start += strlen(heading);
	/* Headings start in column 0; everything else is indented. */
	for (end = start; (end = strchr(end, '\n')); end++) {
		if (end[1] >= 'A' && end[1] <= 'Z')
			break;
	}
	return strndup(start, end ? (size_t)(end - start) : strlen(start));
}

Test(docs, man_pages_render_without_warnings)
{
	for (size_t i = 0; i < NR_PAGES; i++) {
		char path[512], *out, *text;

		page_path(pages[i], path, sizeof(path));
		/* man --warnings: groff's own complaints, on standard error. */
		cr_expect(eq(int, sh(&out, 20, "MANWIDTH=80 man --warnings -l '%s' 2>&1 >/dev/null",
				     path),
			     0));
		cr_expect(eq(str, out, ""), "%s: %s", pages[i], out);
		free(out);
		text = rendered(pages[i]);
		for (const char *s = "NAME\0SYNOPSIS\0DESCRIPTION\0OPTIONS\0EXIT STATUS\0"
				     "ENVIRONMENT\0FILES\0EXAMPLES\0SEE ALSO\0";
		     *s; s += strlen(s) + 1)
			cr_expect(strstr(text, s) != NULL, "%s has no %s section", pages[i], s);
		/* Every exit status heaptap --help gives, and status 4's capabilities. */
		cr_expect(strstr(text, "CAP_DAC_READ_SEARCH") && strstr(text, "\n       127"),
			  "%s: exit statuses incomplete", pages[i]);
		free(text);
	}
}

/*
 * The options a rendered OPTIONS section documents, one per line: its tag lines (indented
 * 7 columns, the docs 14) are "-o, --output=FILE", or "--mpi  doc" when the tag is short.
 */
static char *page_options(const char *opts)
{
	char *list = calloc(1, 8192);

	for (const char *l = opts; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *p = l + strspn(l, " ");

		if (p - l != 7 || p[0] != '-')
			continue;
		while (p[0] == '-') {
			size_t n = strcspn(p, ",=[ \n");

			strncat(list, p, n);
			strcat(list, "\n");
			p += n;
			p += strcspn(p, ",\n ");
			if (p[0] != ',')
				break;
			p += 1 + strspn(p + 1, " ");
		}
	}
	return list;
}

/* sub's page documents each option of its --help in OPTIONS, and no other. */
static void expect_page_has_options(const char *sub, const char *page)
{
	char *options = help_options(sub), *text = rendered(page), *opts = section(text, "OPTIONS");
	char *documented;
	int listed = 0;

	cr_assert(opts != NULL, "%s has no OPTIONS", page);
	documented = page_options(opts);
	for (char *o = options; *o; o = strchr(o, '\n') + 1, listed++) {
		char want[64];

		snprintf(want, sizeof(want), "%.*s", (int)strcspn(o, "\n"), o);
		cr_expect(has_line(documented, want), "%s accepts %s, %s's OPTIONS lack it", sub,
			  want, page);
	}
	cr_expect(listed >= 6, "%s --help lists only %d options", sub, listed);
	for (char *d = documented; *d; d = strchr(d, '\n') + 1) {
		char tag[64];

		snprintf(tag, sizeof(tag), "%.*s", (int)strcspn(d, "\n"), d);
		cr_expect(has_line(options, tag), "%s documents %s, which %s --help lacks", page,
			  tag, sub);
	}
	free(documented);
	free(opts);
	free(text);
	free(options);
}

Test(docs, every_option_the_parser_accepts_is_in_its_page)
{
	char *subs = subcommands();
	int nr = 0;

	for (char *s = subs; *s; s = strchr(s, ' ') + 1, nr++) {
		char sub[32], page[64], path[512];

		snprintf(sub, sizeof(sub), "%.*s", (int)strcspn(s, " "), s);
		snprintf(page, sizeof(page), "heaptap-%s.8", sub);
		snprintf(path, sizeof(path), "%s/man/%s", output_dir(), page);
		if (access(path, R_OK))
			snprintf(page, sizeof(page), "heaptap-%s.1", sub);
		expect_page_has_options(sub, page);
	}
	cr_expect(eq(int, nr, (int)NR_PAGES - 1), "subcommands: %s", subs);
	/* heaptap(8): the global options, and each subcommand named. */
	{
		char *text = rendered("heaptap.8");

		for (const char *o = "-v, --verbose\0--version\0--help\0"; *o; o += strlen(o) + 1)
			cr_expect(strstr(text, o) != NULL, "heaptap(8) lacks %s", o);
		for (char *s = subs; *s; s = strchr(s, ' ') + 1) {
			char ref[64];

			snprintf(ref, sizeof(ref), "heaptap-%.*s(", (int)strcspn(s, " "), s);
			cr_expect(strstr(text, ref) != NULL, "heaptap(8) does not name %s", ref);
		}
		free(text);
	}
	free(subs);
}

static char *complete_with(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *complete_with(const char *fmt, ...)
{
	char words[1024], *out, comp[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(words, sizeof(words), fmt, ap);
	va_end(ap);
	snprintf(comp, sizeof(comp), "%s/completion/heaptap", output_dir());
	cr_assert(access(comp, R_OK) == 0, "%s is missing: build it with make docs", comp);
	cr_assert(eq(int, sh(&out, 10,
			     "exec bash --norc --noprofile -c '. \"$0\"; COMP_WORDS=(%s); "
			     "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _heaptap heaptap; "
			     "for w in \"${COMPREPLY[@]}\"; do "
			     "printf \"%%s\\n\" \"$w\"; done' '%s'",
			     words, comp),
		     0),
		  "%s", out);
	return out;
}

static void expect_completion(const char *want, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void expect_completion(const char *want, const char *fmt, ...)
{
	char words[1024], *got;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(words, sizeof(words), fmt, ap);
	va_end(ap);
	got = complete_with("%s", words);
	cr_expect(eq(str, got, (char *)want), "completing (%s)", words);
	free(got);
}

Test(docs, bash_completion)
{
	char comp[512], *out, *subs = subcommands(), want[1024] = "", path[512], *got;

	snprintf(comp, sizeof(comp), "%s/completion/heaptap", output_dir());
	/* Loading it registers the function for heaptap. */
	cr_expect(eq(int, sh(&out, 10, "exec bash --norc -c '. \"$0\"; complete -p heaptap' '%s'",
			     comp),
		     0));
	cr_expect(eq(str, out, "complete -F _heaptap heaptap\n"));
	free(out);

	/* The subcommands, as heaptap --help lists them. */
	for (char *s = subs; *s; s = strchr(s, ' ') + 1)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%.*s\n",
			 (int)strcspn(s, " "), s);
	expect_completion(want, "heaptap \"\"");
	expect_completion(want, "heaptap -v \"\"");
	expect_completion("run\nreport\n", "heaptap r");
	/* Each subcommand's own options: attach has -d, run has not. */
	expect_completion("--duration\n", "heaptap attach --du");
	expect_completion("--depth\n--dmatp\n", "heaptap run --d");
	expect_completion("", "heaptap run --du");
	/* Fixed values, after the option or its '=' (which bash makes a word). */
	expect_completion("tables\nfp\n", "heaptap run --unwind \"\"");
	expect_completion("fp\n", "heaptap attach --unwind = f");
	expect_completion("entry\ncaller\n", "heaptap agent -a \"\"");
	expect_completion("peak\n", "heaptap report x.json --folded-weight p");
	/* Typed values get nothing: a number or an address is not guessed. */
	expect_completion("", "heaptap collect --listen \"\"");
	/* PIDs for -p: this process's among them, and after a comma too. */
	snprintf(want, sizeof(want), "%d", getpid());
	got = complete_with("heaptap attach -p %d", getpid());
	cr_expect(strstr(got, want) != NULL, "pid %s not offered: %s", want, got);
	free(got);
	got = complete_with("heaptap top -p 1,%d", getpid());
	snprintf(want, sizeof(want), "1,%d\n", getpid());
	cr_expect(strstr(got, want) != NULL, "pid list %s not offered: %s", want, got);
	free(got);
	/* Files for --json and -o, and for report's arguments. */
	scratch_file("completion-report.json", path, sizeof(path));
	fclose(fopen(path, "w"));
	snprintf(want, sizeof(want), "%s\n", path);
	path[strlen(path) - 7] = '\0'; /* "...completion-re" */
	expect_completion(want, "heaptap run --json %s", path);
	expect_completion(want, "heaptap attach -p 1 -o %s", path);
	expect_completion(want, "heaptap report %s", path);
	/* After the command starts, its own words: no heaptap option. */
	got = complete_with("heaptap run -- true --j");
	cr_expect(strstr(got, "--json") == NULL, "run -- COMMAND completed heaptap's: %s", got);
	free(got);
	free(subs);
}

/* Every option of each subcommand's --help is offered, and nothing else. */
Test(docs, bash_completion_offers_each_subcommands_options)
{
	char *subs = subcommands();

	for (char *s = subs; *s; s = strchr(s, ' ') + 1) {
		char sub[32], *options, *got;

		snprintf(sub, sizeof(sub), "%.*s", (int)strcspn(s, " "), s);
		options = help_options(sub);
		got = complete_with("heaptap %s -", sub);
		for (char *o = options; *o; o = strchr(o, '\n') + 1) {
			char want[64];

			snprintf(want, sizeof(want), "%.*s", (int)strcspn(o, "\n"), o);
			/* -? is a glob: heaptap offers --help for it. */
			if (!strcmp(want, "-?"))
				continue;
			cr_expect(has_line(got, want), "%s: %.*s not offered", sub,
				  (int)strcspn(o, "\n"), o);
		}
		for (char *g = got; *g; g = strchr(g, '\n') + 1) {
			char word[64];

			snprintf(word, sizeof(word), "%.*s", (int)strcspn(g, "\n"), g);
			cr_expect(has_line(options, word), "%s: offers %s, which it lacks",
				  sub, word);
		}
		free(got);
		free(options);
	}
	free(subs);
}

/*
 * The README's examples: each ```sh block whose first line is "# example" runs as it
 * stands, with sh -e from the source tree and this heaptap first in PATH, and succeeds.
 */
Test(docs, readme_examples)
{
	char readme[4200], *text, *p, *out;
	int ran = 0;

	require_bpf();
	snprintf(readme, sizeof(readme), "%s/README.md", source_dir());
	text = slurp(readme);
	cr_assert(text != NULL, "cannot read %s", readme);
	for (p = text; (p = strstr(p, "\n```sh\n# example\n")); ran++) {
		char *body = p + strlen("\n```sh\n"), *end = strstr(body, "\n```\n"), dir[4200];

		cr_assert(end != NULL, "README: an example block without its end");
		snprintf(dir, sizeof(dir), "%s", heaptap_path());
		*strrchr(dir, '/') = '\0';
		cr_expect(eq(int, sh(&out, 60, "cd '%s' && PATH='%s':$PATH && set -e\n%.*s",
				     source_dir(), dir, (int)(end - body), body),
			     0),
			  "README's example failed:\n%.*s\n--- its output:\n%s", (int)(end - body),
			  body, out);
		free(out);
		p = end;
	}
	cr_expect(ran >= 3, "README has only %d examples marked '# example'", ran);
	free(text);
}

/* heaptap --version: the version git describes, the libbpf it runs with, what it found. */
Test(docs, version)
{
	char *out, *want, *libbpf;
	bool btf = access("/sys/kernel/btf/vmlinux", F_OK) == 0;

	cr_assert(eq(int, sh(&want, 10, "cd '%s' && tools/version.sh", source_dir()), 0));
	cr_assert(eq(int, sh(&libbpf, 10, "pkg-config --modversion libbpf"), 0));
	cr_assert(eq(int, sh(&out, 10, "'%s' --version", heaptap_path()), 0), "%s", out);
	/* "heaptap 0.1+259.g1070873\nlibbpf v1.1 (built with 1.1)\n" */
	cr_expect(strncmp(out, "heaptap ", 8) == 0 &&
			  strncmp(out + 8, want, strlen(want)) == 0,
		  "want heaptap %s, got: %s", want, out);
	libbpf[strcspn(libbpf, ".")] = '\0'; /* its major version: "1" */
	{
		char line[64];

		snprintf(line, sizeof(line), "\nlibbpf v%s.", libbpf);
		cr_expect(strstr(out, line) != NULL, "want '%s' in: %s", line + 1, out);
	}
	cr_expect(strstr(out, btf ? "BTF (/sys/kernel/btf/vmlinux)                    yes" :
				    "BTF (/sys/kernel/btf/vmlinux)                    no") != NULL,
		  "%s", out);
	/* The same from any subcommand, as argp's --version is. */
	{
		char *again;

		cr_expect(eq(int, sh(&again, 10, "'%s' run --version", heaptap_path()), 0));
		cr_expect(eq(str, again, out));
		free(again);
	}
	free(out);
	free(libbpf);
	free(want);
}

/*
 * What an interactive zsh offers when Tab is pressed after each line: a zsh on a pseudo
 * terminal (zpty) loads _heaptap with compinit, and every compadd the completion
 * functions make logs the words it adds (compadd -O: those that match what is typed).
 * Each line's words follow a line "== LINE", sorted.
 */
static const char zsh_driver[] =
	"zmodload zsh/zpty\n"
	"dir=$1 scratch=$2\n"
	"shift 2\n"
	"zpty z 'zsh -f -i'\n"
	"zpty -w z \"PS1='> '; fpath=($dir \\$fpath); autoload -Uz compinit; "
	"compinit -u -d $scratch/zcompdump; unsetopt beep\"\n"
	"zpty -w z 'compadd() { local -a o=(\"$@\") m; if [[ -z ${o[(r)-[OAD]*]} ]]; then "
	"builtin compadd -O m \"$@\"; print -rl -- $m >> '$scratch'/words; fi; "
	"builtin compadd \"$@\"; }'\n"
	"zpty -w z \"print READY\\$((1+1))\"\n"
	"zpty -r z out '*READY2*'\n"
	"n=1000\n"
	"for line in \"$@\"; do\n"
	"\tn=$((n + 1))\n"
	"\t: > $scratch/words\n"
	/* Tab, then a line that prints a mark once the completion is done. */
	"\tzpty -w -n z \"$line\"$'\\t\\C-u'\"print MARK\\$(($n+0))\"$'\\n'\n"
	"\tzpty -r z out \"*MARK$n*\"\n"
	"\tprint -r -- \"== $line\"\n"
	"\tgrep -v '^$' $scratch/words | LC_ALL=C sort -u\n"
	"done\n"
	"zpty -d z\n";

/* The words zsh offers for each line of lines (NULL-terminated), as "== LINE\nWORD\n...". */
static char *zsh_complete(const char *const lines[])
{
	char driver[512], args[8192] = "", comp[512], *out;
	FILE *f;

	cr_assert(access("/usr/bin/zsh", X_OK) == 0, "zsh is missing: make deps-test installs it");
	snprintf(comp, sizeof(comp), "%s/completion/_heaptap", output_dir());
	cr_assert(access(comp, R_OK) == 0, "%s is missing: build it with make docs", comp);
	scratch_file("zsh-driver.zsh", driver, sizeof(driver));
	f = fopen(driver, "w");
	cr_assert(f != NULL);
	fputs(zsh_driver, f);
	fclose(f);
	for (int i = 0; lines[i]; i++)
		snprintf(args + strlen(args), sizeof(args) - strlen(args), " '%s'", lines[i]);
	cr_assert(eq(int, sh(&out, 30, "zsh -f '%s' '%s/completion' '%s' %s", driver, output_dir(),
			     scratch_dir(), args),
		     0),
		  "%s", out);
	return out;
}

/* The words offered for line, in out of zsh_complete ("" if none), malloc'ed. */
static char *zsh_words(const char *out, const char *line)
{
	char head[512];
	const char *start, *end;

	snprintf(head, sizeof(head), "== %s\n", line);
	start = strstr(out, head);
	cr_assert(start != NULL, "no '%s' in: %s", line, out);
	start += strlen(head);
	if (!strncmp(start, "== ", 3))
		return strdup(""); /* nothing offered: the next line's section follows */
	end = strstr(start, "\n== ");
	return strndup(start, end ? (size_t)(end - start) + 1 : strlen(start));
}

Test(docs, zsh_completion)
{
	char path[512], file_line[600], *out, *got, *subs = subcommands();
	const char *lines[32] = {
		"heaptap r",
		"heaptap run --unwind ",
		"heaptap attach --unwind=f",
		"heaptap run --unw",
		"heaptap attach --du",
		"heaptap run --du",
		"heaptap agent -a ",
		"heaptap report x.json --folded-weight p",
		"heaptap collect --listen ",
		"heaptap run -- ech",
		"heaptap top -p ",
		file_line,
	};
	const char *const want[][2] = {
		{ "heaptap r", "report\nrun\n" },
		{ "heaptap run --unwind ", "fp\ntables\n" },
		{ "heaptap attach --unwind=f", "fp\n" },
		{ "heaptap run --unw", "--unwind\n" },
		{ "heaptap attach --du", "--duration\n" },
		{ "heaptap run --du", "" },
		{ "heaptap agent -a ", "caller\nentry\n" },
		{ "heaptap report x.json --folded-weight p", "peak\n" },
		{ "heaptap collect --listen ", "" },
	};
	int nr = 12;

	/* Each subcommand's options, as its --help lists them. */
	for (char *s = subs; *s && nr < 30; s = strchr(s, ' ') + 1) {
		char *line = malloc(64);

		snprintf(line, 64, "heaptap %.*s -", (int)strcspn(s, " "), s);
		lines[nr++] = line;
	}
	scratch_file("zcompletion-report.json", path, sizeof(path));
	fclose(fopen(path, "w"));
	snprintf(file_line, sizeof(file_line), "heaptap run --json %.*s", (int)strlen(path) - 7,
		 path);
	out = zsh_complete(lines);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		got = zsh_words(out, want[i][0]);
		cr_expect(eq(str, got, (char *)want[i][1]), "zsh completing '%s'", want[i][0]);
		free(got);
	}
	got = zsh_words(out, "heaptap run -- ech");
	cr_expect(has_line(got, "echo"), "a command after --: %s", got);
	free(got);
	got = zsh_words(out, file_line);
	cr_expect(eq(str, got, "zcompletion-report.json\n"), "a file for --json");
	free(got);
	/* PIDs: some (those of the terminal zsh runs on), nothing but PIDs. */
	got = zsh_words(out, "heaptap top -p ");
	cr_expect(strlen(got) > 1 && strspn(got, "0123456789\n") == strlen(got), "%s", got);
	free(got);
	for (int i = 12; i < nr; i++) {
		const char *sub = lines[i] + strlen("heaptap ");
		char name[32], *options;

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(sub, " "), sub);
		options = help_options(name);
		got = zsh_words(out, lines[i]);
		for (char *o = options; *o; o = strchr(o, '\n') + 1) {
			char word[64];

			snprintf(word, sizeof(word), "%.*s", (int)strcspn(o, "\n"), o);
			if (strcmp(word, "-?"))
				cr_expect(has_line(got, word), "zsh: %s: %s not offered", name,
					  word);
		}
		for (char *g = got; *g; g = strchr(g, '\n') + 1) {
			char word[64];

			snprintf(word, sizeof(word), "%.*s", (int)strcspn(g, "\n"), g);
			cr_expect(has_line(options, word), "zsh: %s offers %s, which it lacks",
				  name, word);
		}
		free(got);
		free(options);
		free((char *)lines[i]);
	}
	free(out);
	free(subs);
}
