// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include "held_maps.h"

/* Oldest first: a process's stops come in the order they were made. */
struct held_maps {
	uint64_t since_ns;
	struct procmaps maps;
	struct held_maps *next;
};

int held_maps__push(struct held_maps **queue, uint64_t since_ns, struct procmaps *maps)
{
	struct held_maps *h = calloc(1, sizeof(*h)), **tail = queue;

	if (!h)
		return -ENOMEM;
	h->since_ns = since_ns;
	h->maps = *maps;
	*maps = (struct procmaps){};
	while (*tail)
		tail = &(*tail)->next;
	*tail = h;
	return 0;
}

static void drop_first(struct held_maps **queue)
{
	struct held_maps *h = *queue;

	*queue = h->next;
	procmaps__clear(&h->maps);
	free(h);
}

bool held_maps__take(struct held_maps **queue, uint64_t since_ns, struct procmaps *out)
{
	while (*queue && (*queue)->since_ns < since_ns)
		drop_first(queue);
	if (!*queue || (*queue)->since_ns != since_ns)
		return false;
	*out = (*queue)->maps;
	(*queue)->maps = (struct procmaps){};
	drop_first(queue);
	return true;
}

void held_maps__clear(struct held_maps **queue)
{
	while (*queue)
		drop_first(queue);
}
