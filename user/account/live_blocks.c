// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Linear probing over one flat array, without tombstones: a removal shifts the entries
 * after it back (a process frees as often as it allocates; tombstones would fill the
 * table). The array grows by a quarter, not by doubling, so that it stays dense: its home
 * slot is found by multiplying the hash by the capacity (Lemire's range reduction), which
 * takes any capacity. It is mapped on its own, so that the old one goes back to the
 * kernel when it grows, and populated at once: a lookup reads a slot before an insertion
 * writes it, and a page first read maps the shared zero page, whose replacement at the
 * first write flushed the TLB of every CPU running heaptap's threads (7% of heaptap's CPU
 * at sixteen ranks' start, in live_blocks__add alone).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "live_blocks.h"
#include "sample_weights.h"

#define INITIAL_SLOTS 1024
#define MAX_LOAD_NUM 7 /* grow past 7/8 full */
#define MAX_LOAD_DEN 8

/* 32 bytes: usable is kept as its excess over requested. addr 0: an empty slot. */
struct slot {
	uint64_t addr;
	uint64_t requested;
	uint32_t slack;
	uint32_t site, tid, when;
};

_Static_assert(sizeof(struct slot) == 32, "a live block's slot");

struct live_blocks {
	struct slot *slots;
	size_t capacity, count, limit;
	struct live_blocks_losses lost;
	uint64_t sample_bytes; /* --sample-bytes (0: exact) */
};

void live_blocks__set_sampling(struct live_blocks *lb, uint64_t sample_bytes)
{
	lb->sample_bytes = sample_bytes;
}

static size_t home_of(uint64_t addr, size_t capacity)
{
	/* Blocks are 16-byte aligned: the multiply spreads the bits that differ upwards. */
	uint64_t hash = addr * 0x9e3779b97f4a7c15ull;

	return (size_t)(((unsigned __int128)hash * capacity) >> 64);
}

static struct slot *map_slots(size_t capacity)
{
	void *p = mmap(NULL, capacity * sizeof(struct slot), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct live_blocks *live_blocks__new(size_t limit)
{
	struct live_blocks *lb = calloc(1, sizeof(*lb));

	if (!lb)
		return NULL;
	lb->limit = limit ? limit : LIVE_BLOCKS_DEFAULT_LIMIT;
	lb->capacity = INITIAL_SLOTS;
	lb->slots = map_slots(lb->capacity);
	if (!lb->slots) {
		free(lb);
		return NULL;
	}
	return lb;
}

void live_blocks__retire(struct live_blocks *lb)
{
	if (!lb || !lb->slots)
		return;
	munmap(lb->slots, lb->capacity * sizeof(struct slot));
	lb->slots = NULL;
	lb->capacity = 0;
}

void live_blocks__each(const struct live_blocks *lb, void (*fn)(void *ctx, uint64_t addr),
		       void *ctx)
{
	for (size_t i = 0; lb && lb->slots && i < lb->capacity; i++) {
		if (lb->slots[i].addr)
			fn(ctx, lb->slots[i].addr);
	}
}

void live_blocks__free(struct live_blocks *lb)
{
	live_blocks__retire(lb);
	free(lb);
}

/* The slot holding addr, or the empty slot where it would go. */
static struct slot *find(struct slot *slots, size_t capacity, uint64_t addr)
{
	size_t i = home_of(addr, capacity);

	while (slots[i].addr && slots[i].addr != addr) {
		if (++i == capacity)
			i = 0;
	}
	return &slots[i];
}

static int grow(struct live_blocks *lb)
{
	size_t capacity = lb->capacity + lb->capacity / 4;
	struct slot *slots = map_slots(capacity);

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < lb->capacity; i++) {
		if (lb->slots[i].addr)
			*find(slots, capacity, lb->slots[i].addr) = lb->slots[i];
	}
	munmap(lb->slots, lb->capacity * sizeof(struct slot));
	lb->slots = slots;
	lb->capacity = capacity;
	return 0;
}

static void block_of(const struct slot *s, struct live_block *out)
{
	*out = (struct live_block){
		.usable = s->requested + s->slack,
		.requested = s->requested,
		.site = s->site,
		.tid = s->tid,
		.when = s->when,
	};
}

static int lose(struct live_blocks *lb, const struct live_block *b, int err)
{
	lb->lost.blocks++;
	lb->lost.bytes += b->usable;
	return err;
}

int live_blocks__add(struct live_blocks *lb, uint64_t addr, const struct live_block *b,
		     struct live_block *replaced)
{
	struct slot *s;
	int found;

	/* A slack beyond 4 GiB (an alignment that large) does not fit the slot: counted. */
	if (b->usable < b->requested || b->usable - b->requested > UINT32_MAX)
		return lose(lb, b, -ENOSPC);
	if (!lb->slots)
		return lose(lb, b, -ENOMEM); /* retired */
	s = find(lb->slots, lb->capacity, addr);
	found = s->addr != 0;
	if (found) {
		block_of(s, replaced);
		if (lb->sample_bytes)
			replaced->weight = (float)sample_weight(lb->sample_bytes, replaced->requested);
	} else {
		if (lb->count >= lb->limit)
			return lose(lb, b, -ENOSPC);
		if ((lb->count + 1) * MAX_LOAD_DEN > lb->capacity * MAX_LOAD_NUM) {
			if (grow(lb))
				return lose(lb, b, -ENOMEM);
			s = find(lb->slots, lb->capacity, addr);
		}
		lb->count++;
	}
	*s = (struct slot){
		.addr = addr,
		.requested = b->requested,
		.slack = (uint32_t)(b->usable - b->requested),
		.site = b->site,
		.tid = b->tid,
		.when = b->when,
	};
	return found;
}

/* Is k cyclically within (hole, j]: an entry at j whose home is k cannot move to hole. */
static bool stays(size_t hole, size_t j, size_t k)
{
	return hole <= j ? hole < k && k <= j : hole < k || k <= j;
}

bool live_blocks__take(struct live_blocks *lb, uint64_t addr, struct live_block *out)
{
	struct slot *s;
	size_t hole, j;

	if (!addr || !lb->slots)
		return false;
	s = find(lb->slots, lb->capacity, addr);
	if (!s->addr)
		return false;
	block_of(s, out);
	out->weight = lb->sample_bytes ? (float)sample_weight(lb->sample_bytes, out->requested) : 0;
	lb->count--;
	/* Shift back the entries that probed past the hole, so that lookups still reach them. */
	hole = j = (size_t)(s - lb->slots);
	for (;;) {
		if (++j == lb->capacity)
			j = 0;
		if (!lb->slots[j].addr)
			break;
		if (stays(hole, j, home_of(lb->slots[j].addr, lb->capacity)))
			continue;
		lb->slots[hole] = lb->slots[j];
		hole = j;
	}
	lb->slots[hole].addr = 0;
	return true;
}

size_t live_blocks__count(const struct live_blocks *lb)
{
	return lb->count;
}

size_t live_blocks__limit(const struct live_blocks *lb)
{
	return lb->limit;
}

size_t live_blocks__bytes(const struct live_blocks *lb)
{
	return sizeof(*lb) + lb->capacity * sizeof(struct slot);
}

struct live_blocks_losses live_blocks__over_limit(const struct live_blocks *lb)
{
	return lb->lost;
}
