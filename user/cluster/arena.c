// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena.h"

#define CHUNK_SIZE (64u << 10)

struct arena_chunk {
	struct arena_chunk *next;
	alignas(max_align_t) unsigned char data[];
};

void *arena_alloc(struct arena *a, size_t size)
{
	size_t align = alignof(max_align_t);
	struct arena_chunk *c;
	void *p;

	size = (size + align - 1) & ~(align - 1);
	if (!a->chunks || a->used + size > a->size) {
		size_t data = size > CHUNK_SIZE ? size : CHUNK_SIZE;

		c = malloc(sizeof(*c) + data);
		if (!c) {
			a->failed = 1;
			return NULL;
		}
		c->next = a->chunks;
		a->chunks = c;
		a->used = 0;
		a->size = data;
	}
	p = a->chunks->data + a->used;
	a->used += size;
	memset(p, 0, size);
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	size_t len = strlen(s) + 1;
	char *p = arena_alloc(a, len);

	if (p)
		memcpy(p, s, len);
	return p;
}

void arena_reset(struct arena *a)
{
	while (a->chunks) {
		struct arena_chunk *c = a->chunks;

		a->chunks = c->next;
		free(c);
	}
	*a = (struct arena){};
}
