/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The blocks a process holds, by address: who allocated each (its allocation site), its
 * usable and requested bytes, the thread and the time. A block enters when an allocation
 * returns it and leaves when free or realloc releases it: then heaptap knows what the
 * release gave back, and whom to take it from, under any allocator.
 *
 * One live block costs 32 bytes in an open-addressed table kept between 70% and 87.5%
 * full: 37 to 46 bytes a block, everything included. The table holds at most `limit`
 * blocks; those allocated past it are counted (live_blocks__over_limit), not kept.
 */
#ifndef HEAPTAP_LIVE_BLOCKS_H
#define HEAPTAP_LIVE_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The default limit of live blocks per process (--live-blocks): about 180 MiB at most. */
#define LIVE_BLOCKS_DEFAULT_LIMIT (4u << 20)

struct live_block {
	uint64_t usable;    /* bytes the block gives its caller */
	uint64_t requested; /* bytes the caller asked for */
	uint32_t site;	    /* who allocated it, as owner.h keeps it (0: unknown) */
	uint32_t tid;	    /* the thread that allocated it */
	uint32_t when;	    /* seconds since the process was first traced */
	/*
	 * --sample-bytes: 1/p, the blocks this sampled one stands for (0: exact, one). Not
	 * kept in the table: it follows from requested, the size the block was drawn by.
	 */
	float weight;
};

/* A key for rounding a sampled block's estimates: the same at its allocation and release. */
static inline uint64_t live_block__key(const struct live_block *b)
{
	uint64_t x = (b->usable ^ (uint64_t)b->tid << 32 ^ b->when ^ b->requested << 20) *
		     0x9e3779b97f4a7c15ull;

	return x ^ x >> 29;
}

/* A sampled block's estimate: bytes * 1/p, rounded up or down at random, without bias. */
static inline uint64_t live_block__scaled(const struct live_block *b, uint64_t bytes,
					  uint64_t salt)
{
	double x = (double)bytes * b->weight, whole;
	uint64_t k = (live_block__key(b) + salt) * 0xbf58476d1ce4e5b9ull;

	if (b->weight <= 1)
		return bytes;
	whole = (double)(uint64_t)x;
	k ^= k >> 31;
	return (uint64_t)whole + ((double)(k >> 11) * 0x1p-53 < x - whole);
}

/* The blocks, usable and requested bytes a block stands for. */
static inline uint64_t live_block__blocks(const struct live_block *b)
{
	return live_block__scaled(b, 1, 1);
}

static inline uint64_t live_block__usable(const struct live_block *b)
{
	return live_block__scaled(b, b->usable, 2);
}

static inline uint64_t live_block__requested(const struct live_block *b)
{
	return live_block__scaled(b, b->requested, 3);
}

/* The variance a sampled block adds to its site's estimated bytes: s^2 (1 - p) / p^2. */
static inline double live_block__variance(const struct live_block *b)
{
	double w = b->weight, s = (double)b->usable;

	return w > 1 ? s * s * (1 - 1 / w) * w * w : 0;
}

/* Blocks the table could not keep (past its limit, or out of memory), and their bytes. */
struct live_blocks_losses {
	uint64_t blocks, bytes;
};

struct live_blocks;

/* An empty table that keeps at most limit blocks (0: the default); NULL if no memory. */
struct live_blocks *live_blocks__new(size_t limit);
void live_blocks__free(struct live_blocks *lb);
/*
 * --sample-bytes R: its blocks are sampled ones; live_blocks__take gives each its weight
 * back (R, requested: sample_weights.h).
 */
void live_blocks__set_sampling(struct live_blocks *lb, uint64_t sample_bytes);

/*
 * Remember the block allocated at addr (not 0). Returns 0; 1 when addr was already there
 * (its release was never seen: an event lost): *replaced is the block it held; -ENOSPC
 * past the limit, -ENOMEM: the block is counted in the losses, not kept.
 */
int live_blocks__add(struct live_blocks *lb, uint64_t addr, const struct live_block *b,
		     struct live_block *replaced);
/* Forget the block at addr, into *out; false when heaptap never saw it allocated. */
bool live_blocks__take(struct live_blocks *lb, uint64_t addr, struct live_block *out);

/*
 * The process ended: give the table's slots back, keep what it counted (count, limit,
 * losses) for the report. Nothing is added or taken after it.
 */
void live_blocks__retire(struct live_blocks *lb);

size_t live_blocks__count(const struct live_blocks *lb);
/* Each block's address, in no order. */
void live_blocks__each(const struct live_blocks *lb, void (*fn)(void *ctx, uint64_t addr),
		       void *ctx);
size_t live_blocks__limit(const struct live_blocks *lb);
/* What the table costs in memory now, in bytes. */
size_t live_blocks__bytes(const struct live_blocks *lb);
struct live_blocks_losses live_blocks__over_limit(const struct live_blocks *lb);

#endif
