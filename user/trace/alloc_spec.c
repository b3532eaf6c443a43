// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc_spec.h"

static const char *const kind_names[SPEC_NR_KINDS] = {
	[SPEC_MALLOC] = "malloc",	  [SPEC_CALLOC] = "calloc", [SPEC_REALLOC] = "realloc",
	[SPEC_FREE] = "free",		  [SPEC_MEMALIGN] = "memalign",
	[SPEC_POSIX_MEMALIGN] = "posix_memalign", [SPEC_BRK] = "brk",
};

static const char *const role_names[ROLE_NR] = {
	[ROLE_SIZE] = "size", [ROLE_PTR] = "ptr", [ROLE_COUNT] = "count",
	[ROLE_ALIGN] = "align", [ROLE_OUT] = "out", [ROLE_INCREMENT] = "increment",
};

/* The roles each kind needs: all of them, and no other. */
static const unsigned kind_roles[SPEC_NR_KINDS] = {
	[SPEC_MALLOC] = 1u << ROLE_SIZE,
	[SPEC_CALLOC] = 1u << ROLE_COUNT | 1u << ROLE_SIZE,
	[SPEC_REALLOC] = 1u << ROLE_PTR | 1u << ROLE_SIZE,
	[SPEC_FREE] = 1u << ROLE_PTR,
	[SPEC_MEMALIGN] = 1u << ROLE_ALIGN | 1u << ROLE_SIZE,
	[SPEC_POSIX_MEMALIGN] = 1u << ROLE_OUT | 1u << ROLE_ALIGN | 1u << ROLE_SIZE,
	[SPEC_BRK] = 1u << ROLE_INCREMENT,
};

/* oneTBB's scalable allocator (tbb/scalable_allocator.h); scalable_msize moves nothing. */
static const char tbb_spec[] = "scalable_malloc          malloc          size=arg1\n"
			       "scalable_calloc          calloc          count=arg1 size=arg2\n"
			       "scalable_realloc         realloc         ptr=arg1 size=arg2\n"
			       "scalable_free            free            ptr=arg1\n"
			       "scalable_aligned_malloc  memalign        size=arg1 align=arg2\n"
			       "scalable_aligned_realloc realloc         ptr=arg1 size=arg2\n"
			       "scalable_aligned_free    free            ptr=arg1\n"
			       "scalable_posix_memalign  posix_memalign  out=arg1 align=arg2 size=arg3\n";

const char *alloc_spec__kind_name(enum spec_kind kind)
{
	return kind < SPEC_NR_KINDS ? kind_names[kind] : "?";
}

static int fail(char *err, size_t err_len, const char *source, unsigned line, const char *fmt,
		const char *what)
{
	int n = snprintf(err, err_len, "%s:%u: ", source, line);

	if (n >= 0 && (size_t)n < err_len)
		snprintf(err + n, err_len - n, fmt, what);
	return -EINVAL;
}

static int parse_kind(const char *word, enum spec_kind *kind)
{
	for (int k = 0; k < SPEC_NR_KINDS; k++) {
		if (!strcmp(word, kind_names[k])) {
			*kind = k;
			return 0;
		}
	}
	return -EINVAL;
}

/* "size=arg2": its role and argument; -EINVAL otherwise. */
static int parse_argument(const char *word, enum spec_role *role, unsigned *arg)
{
	const char *eq = strchr(word, '=');
	char *end;
	long n;

	if (!eq || strncmp(eq + 1, "arg", 3))
		return -EINVAL;
	n = strtol(eq + 4, &end, 10);
	if (*end || end == eq + 4 || n < 1 || n > ALLOC_SPEC_MAX_ARGS)
		return -EINVAL;
	for (int r = 0; r < ROLE_NR; r++) {
		if (strlen(role_names[r]) == (size_t)(eq - word) &&
		    !strncmp(word, role_names[r], eq - word)) {
			*role = r;
			*arg = n;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_line(struct alloc_spec *spec, char *text, unsigned line, char *err,
		      size_t err_len)
{
	const char *source = spec->source;
	struct spec_entry *e;
	char *save, *word;
	unsigned seen = 0;

	if (strchr(text, '#'))
		*strchr(text, '#') = '\0';
	word = strtok_r(text, " \t\r", &save);
	if (!word)
		return 0;
	if (spec->nr >= ALLOC_SPEC_MAX_ENTRIES)
		return fail(err, err_len, source, line, "more than %s entry points", "64");
	if (strlen(word) >= sizeof(e->function))
		return fail(err, err_len, source, line, "function name too long: %s", word);
	for (size_t i = 0; i < spec->nr; i++) {
		if (!strcmp(spec->entries[i].function, word))
			return fail(err, err_len, source, line,
				    "%s is described twice: one line per function", word);
	}
	e = &spec->entries[spec->nr];
	memset(e, 0, sizeof(*e));
	snprintf(e->function, sizeof(e->function), "%s", word);
	e->line = line;
	word = strtok_r(NULL, " \t\r", &save);
	if (!word)
		return fail(err, err_len, source, line,
			    "%s has no kind: malloc, calloc, realloc, free, memalign, "
			    "posix_memalign or brk", e->function);
	if (parse_kind(word, &e->kind))
		return fail(err, err_len, source, line,
			    "unknown kind '%s': malloc, calloc, realloc, free, memalign, "
			    "posix_memalign or brk", word);
	while ((word = strtok_r(NULL, " \t\r", &save))) {
		enum spec_role role;
		unsigned arg;

		if (parse_argument(word, &role, &arg))
			return fail(err, err_len, source, line,
				    "bad argument '%s': ROLE=argN with N from 1 to 6", word);
		if (!(kind_roles[e->kind] & (1u << role)) || (seen & (1u << role)))
			return fail(err, err_len, source, line, "'%s' does not belong here",
				    word);
		seen |= 1u << role;
		e->arg[role] = arg;
	}
	for (int r = 0; r < ROLE_NR; r++) {
		if ((kind_roles[e->kind] & (1u << r)) && !(seen & (1u << r))) {
			char what[192];

			snprintf(what, sizeof(what), "%s (%s) needs %s=argN", e->function,
				 kind_names[e->kind], role_names[r]);
			return fail(err, err_len, source, line, "missing argument: %s", what);
		}
	}
	spec->nr++;
	return 0;
}

int alloc_spec__parse(const char *source, const char *text, struct alloc_spec *out, char *err,
		      size_t err_len)
{
	const char *slash = strrchr(source, '/'), *dot;
	char *copy = strdup(text), *line, *save;
	unsigned nr = 0;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	memset(out, 0, sizeof(*out));
	snprintf(out->source, sizeof(out->source), "%s", source);
	snprintf(out->name, sizeof(out->name), "%s", slash ? slash + 1 : source);
	dot = strchr(out->name, '.');
	if (dot && dot != out->name)
		out->name[dot - out->name] = '\0';
	/* strtok_r would merge empty lines, and the line numbers with them. */
	for (line = copy; line && !ret; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		ret = parse_line(out, line, ++nr, err, err_len);
	}
	if (!ret && !out->nr)
		ret = fail(err, err_len, source, nr, "%s describes no entry point", source);
	free(copy);
	return ret;
}

int alloc_spec__load(const char *name_or_path, struct alloc_spec *out, char *err, size_t err_len)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (!strcmp(name_or_path, "tbb"))
		return alloc_spec__parse("tbb", tbb_spec, out, err, err_len);
	f = fopen(name_or_path, "r");
	if (!f) {
		ret = -errno;
		snprintf(err, err_len, "%s: %s (an allocator is tbb or a spec file)", name_or_path,
			 strerror(-ret));
		return ret;
	}
	/* A spec is small: its entry points at most. */
	ret = getdelim(&text, &len, '\0', f) < 0 && ferror(f) ? -EIO : 0;
	fclose(f);
	if (!ret)
		ret = alloc_spec__parse(name_or_path, text ? text : "", out, err, err_len);
	else
		snprintf(err, err_len, "%s: cannot be read", name_or_path);
	free(text);
	return ret;
}
