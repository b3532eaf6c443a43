/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* "did you mean": the word a mistyped subcommand or option most likely meant. */
#ifndef HEAPTAP_CLI_SUGGEST_H
#define HEAPTAP_CLI_SUGGEST_H

#include <stddef.h>

/*
 * The edits (a letter inserted, deleted, changed, or two neighbours swapped) that turn a
 * into b: "atach" is 1 from "attach", "attahc" 1 too.
 */
size_t cli_edit_distance(const char *a, const char *b);

/*
 * Keeps in *best the candidate closest to typed: within 2 edits, and no more than a third
 * of the candidate's length ("top" only 1 edit away, so that "run" does not suggest it); a
 * closer one replaces it, a tie keeps the first. Call once per candidate, *best NULL
 * before the first.
 */
void cli_suggest(const char *typed, const char *candidate, const char **best,
		 size_t *best_distance);

#endif
