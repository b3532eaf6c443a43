// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An open-addressing table over an array of groups: 150 bytes a group, where a general hash
 * table's handles would add a third again (a 10,000-rank job holds millions of groups).
 * Each slot keeps 32 bits of its key's hash: a probe reads a group only when they match.
 * The table outgrows the caches; a message's groups have their slots fetched all at once,
 * so that their misses overlap, and the slots sit on huge pages where the kernel allows.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "store_pending.h"

#define HUGE_PAGE (2u << 20)

static uint64_t mix(uint64_t h)
{
	/* splitmix64's finaliser: every key bit reaches the slot bits */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

static uint64_t hash_of(int64_t process, int kind, int64_t a, int64_t b)
{
	return mix(mix(mix((uint64_t)process * 4 + (uint64_t)kind) ^ (uint64_t)a) ^ (uint64_t)b);
}

static bool same_key(const struct pending_group *g, int64_t process, int kind, int64_t a,
		     int64_t b)
{
	return g->process == process && g->kind == kind && g->a == a && g->b == b;
}

#define SLOT_INDEX(slot) ((uint32_t)(slot)) /* + 1 */
#define SLOT_TAG(hash) ((hash) & 0xffffffff00000000ull)

/* The slot of the key: its group's, or the free one where it would go. */
static uint64_t *slot_of(const struct pending_groups *pg, uint64_t hash, int64_t process,
			 int kind, int64_t a, int64_t b)
{
	size_t mask = pg->nr_slots - 1, i = hash & mask;
	uint64_t slot;

	while ((slot = pg->slots[i]) &&
	       !(SLOT_TAG(slot) == SLOT_TAG(hash) &&
		 same_key(&pg->groups[SLOT_INDEX(slot) - 1], process, kind, a, b)))
		i = (i + 1) & mask;
	return &pg->slots[i];
}

static int grow_slots(struct pending_groups *pg)
{
	size_t n = pg->nr_slots ? pg->nr_slots * 2 : 1024;
	uint64_t *old = pg->slots;

	if (n > UINT32_MAX) /* indexes are 32 bits */
		return -ENOMEM;
	if (n * sizeof(*pg->slots) >= HUGE_PAGE) {
		pg->slots = aligned_alloc(HUGE_PAGE, n * sizeof(*pg->slots));
		if (pg->slots) {
			madvise(pg->slots, n * sizeof(*pg->slots), MADV_HUGEPAGE);
			memset(pg->slots, 0, n * sizeof(*pg->slots));
		}
	} else {
		pg->slots = calloc(n, sizeof(*pg->slots));
	}
	if (!pg->slots) {
		pg->slots = old;
		return -ENOMEM;
	}
	pg->nr_slots = n;
	for (size_t i = 0; i < pg->nr; i++) {
		const struct pending_group *g = &pg->groups[i];
		uint64_t hash = hash_of(g->process, g->kind, g->a, g->b);

		*slot_of(pg, hash, g->process, g->kind, g->a, g->b) = SLOT_TAG(hash) | (i + 1);
	}
	free(old);
	return 0;
}

static struct pending_group *add(struct pending_groups *pg, uint64_t hash, int64_t process,
				 int kind, int64_t a, int64_t b)
{
	uint64_t *slot;

	if ((pg->nr + 1) * 2 > pg->nr_slots && grow_slots(pg))
		return NULL;
	if (pg->nr == pg->cap) {
		size_t cap = pg->cap ? pg->cap * 2 : 512;
		struct pending_group *grown = realloc(pg->groups, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		pg->groups = grown;
		pg->cap = cap;
	}
	slot = slot_of(pg, hash, process, kind, a, b);
	*slot = SLOT_TAG(hash) | (pg->nr + 1);
	pg->groups[pg->nr] = (struct pending_group){ .process = process, .kind = kind,
						     .a = a, .b = b };
	return &pg->groups[pg->nr++];
}

static int put_one(struct pending_groups *pg, uint64_t hash, int64_t process,
		   const struct pending_put *put)
{
	struct pending_group *g = NULL;
	const Heaptap__Balance *bal = put->bal;
	const char *kept = NULL;

	if (pg->nr_slots) {
		uint64_t slot = *slot_of(pg, hash, process, put->kind, put->a, put->b);

		if (slot)
			g = &pg->groups[SLOT_INDEX(slot) - 1];
	}
	/* A thread's name rarely changes: keep the copy made for it. */
	if (put->name && !(g && g->name && !strcmp(g->name, put->name)) &&
	    !(kept = arena_strdup(&pg->names, put->name)))
		return -ENOMEM;
	if (!g && !(g = add(pg, hash, process, put->kind, put->a, put->b)))
		return -ENOMEM;
	if (put->name)
		g->name = kept ? kept : g->name;
	else
		g->name = NULL;
	g->current = bal->current;
	g->min = bal->min;
	g->max = bal->max;
	g->requested = bal->requested;
	for (int f = 0; f < HT_NR_FUNCS; f++)
		g->calls[f] = f < (int)bal->n_calls ? bal->calls[f] : 0;
	return 0;
}

int pending__put(struct pending_groups *pg, int64_t process, const struct pending_put *puts,
		 size_t n)
{
	enum { AHEAD = 32 };
	uint64_t hashes[AHEAD];

	for (size_t done = 0; done < n; done += AHEAD) {
		size_t count = n - done < AHEAD ? n - done : AHEAD;

		for (size_t i = 0; i < count; i++) {
			const struct pending_put *put = &puts[done + i];

			hashes[i] = hash_of(process, put->kind, put->a, put->b);
			if (pg->nr_slots)
				__builtin_prefetch(&pg->slots[hashes[i] & (pg->nr_slots - 1)]);
		}
		for (size_t i = 0; i < count; i++) {
			if (put_one(pg, hashes[i], process, &puts[done + i]))
				return -ENOMEM;
		}
	}
	return 0;
}

/* A group's key and place, sorted apart from the groups: a compare reads no group. */
struct sort_key {
	int64_t process, a, b;
	int32_t kind;
	uint32_t index;
};

static int by_key(const void *x, const void *y)
{
	const struct sort_key *l = x, *r = y;

	if (l->process != r->process)
		return l->process < r->process ? -1 : 1;
	if (l->kind != r->kind)
		return l->kind < r->kind ? -1 : 1;
	if (l->a != r->a)
		return l->a < r->a ? -1 : 1;
	return l->b < r->b ? -1 : l->b > r->b;
}

const struct pending_group **pending__in_key_order(struct pending_groups *pg)
{
	size_t want = pg->nr ? pg->nr : 1;
	struct sort_key *keys;

	if (want > pg->order_cap) {
		const struct pending_group **grown = realloc(pg->order, want * sizeof(*grown));

		if (!grown)
			return NULL;
		pg->order = grown;
		pg->order_cap = want;
	}
	if (!(keys = malloc(want * sizeof(*keys))))
		return NULL;
	for (size_t i = 0; i < pg->nr; i++) {
		const struct pending_group *g = &pg->groups[i];

		keys[i] = (struct sort_key){ g->process, g->a, g->b, g->kind, (uint32_t)i };
	}
	qsort(keys, pg->nr, sizeof(*keys), by_key);
	for (size_t i = 0; i < pg->nr; i++)
		pg->order[i] = &pg->groups[keys[i].index];
	free(keys);
	return pg->order;
}

size_t pending__bytes(const struct pending_groups *pg)
{
	return pg->cap * sizeof(*pg->groups) + pg->nr_slots * sizeof(*pg->slots) +
	       pg->order_cap * sizeof(*pg->order);
}

void pending__clear(struct pending_groups *pg)
{
	if (pg->nr_slots)
		memset(pg->slots, 0, pg->nr_slots * sizeof(*pg->slots));
	pg->nr = 0;
	arena_reset(&pg->names);
}

void pending__free(struct pending_groups *pg)
{
	free(pg->groups);
	free(pg->slots);
	free(pg->order);
	arena_reset(&pg->names);
	*pg = (struct pending_groups){};
}
