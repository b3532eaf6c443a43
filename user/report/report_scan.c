// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A report's text cut before parsing (report_scan.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report_scan.h"

char *report_scan__slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL, *grown;
	size_t n = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 1 >= cap) {
			cap = cap ? cap * 2 : 1 << 16;
			if (!(grown = realloc(text, cap))) {
				free(text);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			text = grown;
		}
		got = fread(text + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	if (ferror(f)) {
		free(text);
		fclose(f);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	text[n] = '\0';
	*size = n;
	return text;
}

/* The index of the closing quote of the string that starts at text[at] (a '"'). */
static size_t string_end(const char *text, size_t size, size_t at)
{
	for (at++; at < size; at++) {
		if (text[at] == '\\')
			at++;
		else if (text[at] == '"')
			return at;
	}
	return size;
}

/* The index after the array or object that starts at text[at]. */
static size_t value_end(const char *text, size_t size, size_t at)
{
	int depth = 0;

	for (; at < size; at++) {
		char c = text[at];

		if (c == '"')
			at = string_end(text, size, at);
		else if (c == '[' || c == '{')
			depth++;
		else if ((c == ']' || c == '}') && --depth == 0)
			return at + 1;
	}
	return size;
}

/* Is text[at..end] (a key with its quotes) name? */
static bool is_key(const char *text, size_t at, size_t end, const char *name)
{
	return name && end - at - 1 == strlen(name) && !memcmp(text + at + 1, name, end - at - 1);
}

static bool dropped(const char *text, size_t at, size_t end, const char *const drop[])
{
	for (size_t i = 0; drop && drop[i]; i++) {
		if (is_key(text, at, end, drop[i]))
			return true;
	}
	return false;
}

/* Room for process i's kept text. */
static int grow(struct report_cut *c, size_t i)
{
	char **kept;

	if (i < c->nr)
		return 0;
	if (!(kept = realloc(c->kept, (i + 1) * sizeof(*kept))))
		return -ENOMEM;
	memset(kept + c->nr, 0, (i + 1 - c->nr) * sizeof(*kept));
	c->kept = kept;
	c->nr = i + 1;
	return 0;
}

int report_scan__cut(char *text, size_t size, const char *keep, const char *const drop[],
		     struct report_cut *out)
{
	bool in_processes = false;
	size_t process = 0;
	int depth = 0;

	*out = (struct report_cut){};
	for (size_t at = 0; at < size; at++) {
		char c = text[at];
		size_t end, v, stop;

		if (c == '{' || c == '[') {
			/* A process opens: the root's "processes" holds it. */
			if (depth++ == 2 && c == '{' && in_processes && grow(out, process++))
				return -ENOMEM;
			continue;
		}
		if (c == '}' || c == ']') {
			depth--;
			continue;
		}
		if (c != '"')
			continue;
		end = string_end(text, size, at);
		v = end + 1 + strspn(text + end + 1, " \t\r\n");
		if (v >= size || text[v] != ':' || (depth != 1 && depth != 3)) {
			at = end;
			continue;
		}
		in_processes = depth == 1 ? is_key(text, at, end, "processes") : in_processes;
		v += 1 + strspn(text + v + 1, " \t\r\n");
		/* The root's fields in drop go too ("stacks"). */
		if (depth == 1 && v < size && (text[v] == '[' || text[v] == '{') &&
		    dropped(text, at, end, drop)) {
			stop = value_end(text, size, v);
			if (stop - v >= 4) {
				memset(text + v, ' ', stop - v);
				memcpy(text + v, "null", 4);
			}
			at = stop - 1;
			continue;
		}
		if (depth == 1 || !in_processes || v >= size || (text[v] != '[' && text[v] != '{') ||
		    (!is_key(text, at, end, keep) && !dropped(text, at, end, drop))) {
			at = end;
			continue;
		}
		stop = value_end(text, size, v);
		if (is_key(text, at, end, keep) && process) {
			char *copy = malloc(stop - v + 1);

			if (!copy)
				return -ENOMEM;
			memcpy(copy, text + v, stop - v);
			copy[stop - v] = '\0';
			free(out->kept[process - 1]);
			out->kept[process - 1] = copy;
		}
		/* "[]" and "{}" stay: no room for null, nothing to parse. */
		if (stop - v >= 4) {
			memset(text + v, ' ', stop - v);
			memcpy(text + v, "null", 4);
		}
		at = stop - 1;
	}
	return 0;
}

void report_cut__clear(struct report_cut *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->kept[i]);
	free(c->kept);
	*c = (struct report_cut){};
}

static void skip_space(const char *text, size_t *at)
{
	while (text[*at] == ' ' || text[*at] == '\n' || text[*at] == '\t' || text[*at] == '\r')
		(*at)++;
}

/* A whole number at text[*at] (18 digits at most: rows hold bytes and counts). */
static bool whole_number(const char *text, size_t *at, int64_t *out)
{
	bool minus = text[*at] == '-';
	size_t start = *at + minus, i = start;
	int64_t v = 0;

	while (text[i] >= '0' && text[i] <= '9' && i - start < 18)
		v = v * 10 + (text[i++] - '0');
	if (i == start || (text[i] >= '0' && text[i] <= '9'))
		return false;
	*out = minus ? -v : v;
	*at = i;
	return true;
}

int report_scan__row(const char *text, size_t *at, int64_t *v, size_t max, size_t *nr)
{
	skip_space(text, at);
	/* Before the first row, the list's '['; between rows, a ','. */
	if (text[*at] == '[' || text[*at] == ',')
		(*at)++;
	else if (text[*at] == ']')
		return (*at)++, 0;
	else
		return -EINVAL;
	skip_space(text, at);
	if (text[*at] == ']')
		return (*at)++, 0; /* an empty list */
	if (text[*at] != '[')
		return -EINVAL;
	(*at)++;
	for (*nr = 0;; (*nr)++) {
		skip_space(text, at);
		if (*nr == max)
			return -EINVAL;
		if (!whole_number(text, at, &v[*nr]))
			return -EINVAL;
		skip_space(text, at);
		if (text[*at] == ']')
			break;
		if (text[*at] != ',')
			return -EINVAL;
		(*at)++;
	}
	(*at)++;
	(*nr)++;
	return 1;
}
