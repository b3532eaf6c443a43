/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Distinct strings, each kept once until the pool is freed: the names that tens of
 * thousands of stacks share (their library, their function) cost one allocation each.
 */
#ifndef HEAPTAP_STRPOOL_H
#define HEAPTAP_STRPOOL_H

struct pooled_string;
struct strpool_memo;

struct strpool {
	struct pooled_string *by_text;
	struct strpool_memo *memo; /* recent answers, made on first use */
	/* 2^memo_bits of them (0: 64); set before the first string, when many recur */
	unsigned int memo_bits;
};

/* The pool's copy of text (made now if it has none), or NULL when out of memory. */
const char *strpool__intern(struct strpool *pool, const char *text);
void strpool__clear(struct strpool *pool);

#endif
