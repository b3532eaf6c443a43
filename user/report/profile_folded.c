// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "profile_folded.h"

static const struct {
	const char *name;
	enum profile_value value;
} weights[] = {
	[FOLDED_OUTSTANDING] = { "outstanding", PROFILE_INUSE_BYTES },
	[FOLDED_PEAK] = { "peak", PROFILE_PEAK_BYTES },
	[FOLDED_ALLOCATED] = { "allocated", PROFILE_ALLOC_BYTES },
	[FOLDED_CALLS] = { "calls", PROFILE_ALLOC_BLOCKS },
};
#define NR_WEIGHTS (sizeof(weights) / sizeof(weights[0]))

int folded_weight_parse(const char *name, enum folded_weight *out)
{
	for (size_t w = 0; w < NR_WEIGHTS; w++) {
		if (!strcmp(name, weights[w].name)) {
			*out = w;
			return 0;
		}
	}
	return -EINVAL;
}

const char *folded_weight_name(enum folded_weight w)
{
	return w < NR_WEIGHTS ? weights[w].name : "?";
}

enum profile_value folded_weight_value(enum folded_weight w)
{
	return weights[w].value;
}

/* One line: its stack, and the weights of every sample with that stack summed. */
struct folded_line {
	int64_t weight;
	struct folded_line *next; /* in the order first seen */
	UT_hash_handle hh;
	char stack[];
};

/*
 * The stack's text, outermost first. The format's separators (';' between frames, the last
 * space before the weight, the line's end) cannot occur inside a frame: ';' and line ends
 * in a name become ':' and ' ' (a name's spaces are safe, the weight follows the last).
 */
static char *stack_text(const struct profile_sample *s)
{
	size_t len = 1;
	char *text, *at;

	for (size_t i = 0; i < s->nr; i++)
		len += strlen(s->frames[i].function) + 1;
	text = at = malloc(len);
	if (!text)
		return NULL;
	for (size_t i = s->nr; i-- > 0;) {
		for (const char *c = s->frames[i].function; *c; c++)
			*at++ = *c == ';' ? ':' : (*c == '\n' || *c == '\r') ? ' ' : *c;
		if (i)
			*at++ = ';';
	}
	*at = '\0';
	return text;
}

int profile_write_folded(FILE *out, const struct heap_profile *p, enum folded_weight w)
{
	struct folded_line *by_stack = NULL, *first = NULL, **last = &first, *l, *tmp;
	const struct profile_sample *const *samples;
	size_t n = heap_profile__samples(p, &samples);
	enum profile_value v = weights[w].value;
	int err = 0;

	if (!(heap_profile__known(p) & PROFILE_VALUE(v)))
		return -ENODATA;
	for (size_t i = 0; i < n && !err; i++) {
		char *text;

		if (!samples[i]->values[v] || !samples[i]->nr)
			continue;
		if (!(text = stack_text(samples[i]))) {
			err = -ENOMEM;
			break;
		}
		HASH_FIND_STR(by_stack, text, l);
		if (!l && (l = calloc(1, sizeof(*l) + strlen(text) + 1))) {
			strcpy(l->stack, text);
			HASH_ADD_STR(by_stack, stack, l);
			*last = l;
			last = &l->next;
		}
		free(text);
		if (!l)
			err = -ENOMEM;
		else
			l->weight += samples[i]->values[v];
	}
	for (l = first; l && !err; l = l->next)
		fprintf(out, "%s %" PRId64 "\n", l->stack, l->weight);
	HASH_ITER(hh, by_stack, l, tmp) {
		HASH_DEL(by_stack, l);
		free(l);
	}
	if (!err && (fflush(out) || ferror(out)))
		err = -EIO;
	return err;
}
