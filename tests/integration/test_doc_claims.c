// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What the README and tools/docs claim about heaptap, checked against what the binary
 * itself says (--version, --help): a claim that drifts from the code fails here.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"
#include "shell.h"

TestSuite(doc_claims, .timeout = 60);

/* A file of the source tree, whole. */
static char *source_file(const char *name)
{
	char path[4200], *text;

	snprintf(path, sizeof(path), "%s/%s", source_dir(), name);
	text = slurp(path);
	cr_assert(text != NULL, "cannot read %s", path);
	return text;
}

/* The kernel the README's set-up names is the one heaptap --version checks for. */
Test(doc_claims, readme_kernel_is_the_one_heaptap_checks)
{
	char *readme = source_file("README.md"), *out, *claim, *feature;
	int major, minor, want_major, want_minor;

	cr_assert(eq(int, sh(&out, 10, "'%s' --version", heaptap_path()), 0), "%s", out);
	feature = strstr(out, "\n  Linux ");
	cr_assert(feature != NULL, "heaptap --version names no kernel: %s", out);
	cr_assert(eq(int, sscanf(feature, "\n  Linux %d.%d or later", &want_major, &want_minor),
		     2),
		  "%s", out);
	claim = strstr(readme, "\nheaptap runs on Linux ");
	cr_assert(claim != NULL, "README's set-up says no longer which kernels heaptap runs on");
	cr_assert(eq(int, sscanf(claim, "\nheaptap runs on Linux %d.%d or later", &major, &minor),
		     2));
	cr_expect(major == want_major && minor == want_minor,
		  "README says Linux %d.%d, heaptap --version checks for %d.%d", major, minor,
		  want_major, want_minor);
	free(out);
	free(readme);
}

/* The documents a reader opens: the README and tools/docs. */
static const char *const documents[] = {
	"README.md",		   "tools/docs/reports.md",	 "tools/docs/usage.md",
	"tools/docs/figures.md",   "tools/docs/cluster.md",	 "tools/docs/postgresql.md",
	"tools/docs/how-it-works.md", "tools/docs/performance.md", "tools/docs/security.md",
	"tools/docs/limits.md",	   "tools/docs/development.md",
};
#define NR_DOCUMENTS (sizeof(documents) / sizeof(documents[0]))

/* GitHub's anchor of a heading: lower case, punctuation dropped, spaces as '-'. */
static void slug(const char *heading, size_t len, char *out, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 1 < size; i++) {
		unsigned char c = heading[i];

		if (c == ' ')
			out[n++] = '-';
		else if (c == '-' || c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'))
			out[n++] = c;
		else if (c >= 'A' && c <= 'Z')
			out[n++] = c - 'A' + 'a';
	}
	out[n] = '\0';
}

/* Has the markdown text a heading (outside code blocks) whose anchor is anchor? */
static bool has_anchor(const char *text, const char *anchor)
{
	bool code = false;

	for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
		size_t len = strcspn(l, "\n");
		char s[256];

		if (!strncmp(l, "```", 3))
			code = !code;
		if (code || l[0] != '#')
			continue;
		len -= strspn(l, "#");
		l += strspn(l, "#");
		len -= strspn(l, " ");
		l += strspn(l, " ");
		slug(l, len, s, sizeof(s));
		if (!strcmp(s, anchor))
			return true;
	}
	return false;
}

/*
 * Every link from one document to another, or to a file of the tree, opens: the file is
 * there, it is no template (the .in files of tools/man, which make turns into pages), and the
 * heading it names is in it.
 */
Test(doc_claims, links_open)
{
	int links = 0;

	for (size_t d = 0; d < NR_DOCUMENTS; d++) {
		char *text = source_file(documents[d]), dir[256];
		const char *slash = strrchr(documents[d], '/');

		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - documents[d]) : 0,
			 documents[d]);
		for (char *p = text; (p = strstr(p, "](")); p += 2) {
			size_t len = strcspn(p + 2, ")");
			char target[512], file[1024], *hash, *linked;

			snprintf(target, sizeof(target), "%.*s", (int)len, p + 2);
			if (strstr(target, "://") || !strncmp(target, "mailto:", 7))
				continue;
			links++;
			hash = strchr(target, '#');
			if (hash)
				*hash++ = '\0';
			cr_expect(strlen(target) < 3 || strcmp(target + strlen(target) - 3, ".in"),
				  "%s links the template %s: a reader cannot open it", documents[d],
				  target);
			if (!target[0]) {
				linked = strdup(text);
			} else {
				snprintf(file, sizeof(file), "%s%s%s", dir, dir[0] ? "/" : "", target);
				{
					char path[1400];

					snprintf(path, sizeof(path), "%s/%s", source_dir(), file);
					linked = slurp(path);
				}
				cr_expect(linked != NULL, "%s links %s, which is not there",
					  documents[d], file);
			}
			if (linked && hash && strstr(target, ".md"))
				cr_expect(has_anchor(linked, hash), "%s links %s#%s: no such heading",
					  documents[d], target, hash);
			else if (linked && hash && !target[0])
				cr_expect(has_anchor(linked, hash), "%s links #%s: no such heading",
					  documents[d], hash);
			free(linked);
		}
		free(text);
	}
	cr_expect(links > 30, "only %d links found", links);
}

/*
 * --list lists a database's runs (report --help: "DB.sqlite: list the stored runs"), and
 * report refuses it on a JSON file: no document says otherwise. Each mention of --list is
 * on a line that names a database.
 */
Test(doc_claims, list_is_for_a_database)
{
	char *out, json[256];
	FILE *f = fopen(scratch_file("one.json", json, sizeof(json)), "w");

	cr_assert(f != NULL);
	fputs("{}\n", f);
	fclose(f);
	cr_assert(eq(int, sh(&out, 10, "'%s' report --help", heaptap_path()), 0));
	cr_expect(strstr(out, "--list                 DB.sqlite: list the stored runs") != NULL,
		  "%s", out);
	free(out);
	cr_expect(eq(int, sh(&out, 10, "'%s' report '%s' --list", heaptap_path(), json), 2),
		  "%s", out);
	cr_expect(strstr(out, "read a database") != NULL, "%s", out);
	free(out);
	for (size_t d = 0; d < NR_DOCUMENTS; d++) {
		char *text = source_file(documents[d]);

		for (char *p = text; (p = strstr(p, "--list")); p++) {
			char *start = p, *end = p + strcspn(p, "\n");

			if (isalnum(p[6]) || p[6] == '-')
				continue; /* --listen */
			{
				char *line = strndup(start, end - start);

				cr_expect(strstr(line, "one file") == NULL && strstr(line, "a file") == NULL,
					  "%s: --list on a file: %s", documents[d], line);
				free(line);
			}

			while (start > text && start[-1] != '\n')
				start--;
			/* A sentence may wrap: the line before and after count too. */
			if (start > text)
				for (start--; start > text && start[-1] != '\n'; start--)
					;
			if (*end)
				end += 1 + strcspn(end + 1, "\n");
			{
				char *span = strndup(start, end - start);

				cr_expect(strstr(span, "sqlite") || strstr(span, "database") ||
						  strstr(span, "postgresql"),
					  "%s: --list without a database: %s", documents[d], span);
				free(span);
			}
		}
		free(text);
	}
}

/*
 * The README's cluster block works as written: report reads the database collect wrote,
 * and the key file agents and collector name is made in the block.
 */
Test(doc_claims, readme_cluster_block_is_consistent)
{
	char *readme = source_file("README.md"), *block, *end, *db, *key;
	char path[256];

	block = strstr(readme, "heaptap collect --listen");
	cr_assert(block != NULL, "README has no cluster block");
	while (block > readme && strncmp(block, "```sh\n", 6))
		block--;
	end = strstr(block + 6, "\n```");
	cr_assert(end != NULL);
	*end = '\0';
	db = strstr(block, "--db ");
	cr_assert(db != NULL, "%s", block);
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(db + 5, " \n"), db + 5);
	for (char *r = block; (r = strstr(r, "heaptap report ")); r++)
		cr_expect(strncmp(r + 15, path, strlen(path)) == 0,
			  "report reads %.*s, collect writes %s", (int)strcspn(r + 15, " \n"),
			  r + 15, path);
	key = strstr(block, "--key ");
	cr_assert(key != NULL, "%s", block);
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(key + 6, " \n"), key + 6);
	for (char *k = block; (k = strstr(k, "--key ")); k++)
		cr_expect(strncmp(k + 6, path, strlen(path)) == 0 && !isalnum(k[6 + strlen(path)]),
			  "--key %.*s and --key %s", (int)strcspn(k + 6, " \n"), k + 6, path);
	{
		char made[300];

		snprintf(made, sizeof(made), "> %s", path);
		cr_expect(strstr(block, made) != NULL, "the block never makes the key %s", path);
	}
	free(readme);
}

/*
 * The documents moved out of the README point to what they refer to by link: "see above"
 * in them meant text of the README that is no longer above them.
 */
Test(doc_claims, moved_text_points_by_link)
{
	for (size_t d = 0; d < NR_DOCUMENTS; d++) {
		char *text = source_file(documents[d]);

		if (strstr(text, "Moved from heaptap's [README]")) {
			cr_expect(strstr(text, "see above") == NULL,
				  "%s points to text that moved: write a link", documents[d]);
		}
		free(text);
	}
}
