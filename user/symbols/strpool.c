// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "strpool.h"
#include "word_hash.h"

struct pooled_string {
	UT_hash_handle hh;
	char text[];
};

/*
 * The last answers, by the address of the text asked for: callers ask for the same few
 * strings from the same places again and again (each frame of each new stack: its
 * library's path, its function's name), and a compare of the text beats hashing it.
 * Checked by content, so an address reused for another text only misses. 64 slots unless
 * the pool's owner asked for more (memo_bits).
 */
#define MEMO_BITS 6

struct strpool_memo {
	struct {
		const char *asked, *kept;
	} slots[0];
};

static unsigned int memo_bits(const struct strpool *pool)
{
	return pool->memo_bits ? pool->memo_bits : MEMO_BITS;
}

static size_t memo_slot(const struct strpool *pool, const char *text)
{
	return ((uintptr_t)text >> 3) * 0x9E3779B97F4A7C15ull >> (64 - memo_bits(pool));
}

const char *strpool__intern(struct strpool *pool, const char *text)
{
	size_t len, slot = memo_slot(pool, text);
	struct pooled_string *p;

	if (pool->memo && pool->memo->slots[slot].asked == text &&
	    !strcmp(pool->memo->slots[slot].kept, text))
		return pool->memo->slots[slot].kept;
	len = strlen(text);
	HASH_FIND(hh, pool->by_text, text, len, p);
	if (!p) {
		p = malloc(sizeof(*p) + len + 1);
		if (!p)
			return NULL;
		memcpy(p->text, text, len + 1);
		HASH_ADD_KEYPTR(hh, pool->by_text, p->text, len, p);
	}
	if (!pool->memo) /* without it, only slower */
		pool->memo = calloc((size_t)1 << memo_bits(pool), sizeof(pool->memo->slots[0]));
	if (pool->memo) {
		pool->memo->slots[slot].asked = text;
		pool->memo->slots[slot].kept = p->text;
	}
	return p->text;
}

void strpool__clear(struct strpool *pool)
{
	struct pooled_string *p, *tmp;

	HASH_ITER(hh, pool->by_text, p, tmp) {
		HASH_DEL(pool->by_text, p);
		free(p);
	}
	free(pool->memo);
	pool->memo = NULL;
}
