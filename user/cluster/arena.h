/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Memory for one message being built: many small blocks, freed at once. */
#ifndef HEAPTAP_ARENA_H
#define HEAPTAP_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *chunks;
	size_t used, size; /* in the newest chunk */
	int failed;	   /* an allocation failed since arena_reset */
};

/* size zeroed bytes, aligned for any type; NULL (and a->failed) when out of memory. */
void *arena_alloc(struct arena *a, size_t size);
char *arena_strdup(struct arena *a, const char *s);
/* Free every block; the arena may be used again. */
void arena_reset(struct arena *a);

#endif
