// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "strpool.h"

struct pooled_string {
	UT_hash_handle hh;
	char text[];
};

const char *strpool__intern(struct strpool *pool, const char *text)
{
	size_t len = strlen(text);
	struct pooled_string *p;

	HASH_FIND(hh, pool->by_text, text, len, p);
	if (p)
		return p->text;
	p = malloc(sizeof(*p) + len + 1);
	if (!p)
		return NULL;
	memcpy(p->text, text, len + 1);
	HASH_ADD_KEYPTR(hh, pool->by_text, p->text, len, p);
	return p->text;
}

void strpool__clear(struct strpool *pool)
{
	struct pooled_string *p, *tmp;

	HASH_ITER(hh, pool->by_text, p, tmp) {
		HASH_DEL(pool->by_text, p);
		free(p);
	}
}
