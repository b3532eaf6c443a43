// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <string.h>
#include "cli_suggest.h"

/* Words longer than this are not compared: no subcommand or option is that long. */
#define MAX_WORD 48

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

size_t cli_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	/* Three rows of the table: the one two back is needed for swaps. */
	size_t rows[3][MAX_WORD + 1];

	if (la > MAX_WORD || lb > MAX_WORD)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		rows[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
	}
	return rows[la % 3][lb];
}

void cli_suggest(const char *typed, const char *candidate, const char **best,
		 size_t *best_distance)
{
	size_t d = cli_edit_distance(typed, candidate);

	if (d == 0 || d > 2 || 3 * d > strlen(candidate))
		return;
	if (!*best || d < *best_distance) {
		*best = candidate;
		*best_distance = d;
	}
}
