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
};

/* Blocks the table could not keep (past its limit, or out of memory), and their bytes. */
struct live_blocks_losses {
	uint64_t blocks, bytes;
};

struct live_blocks;

/* An empty table that keeps at most limit blocks (0: the default); NULL if no memory. */
struct live_blocks *live_blocks__new(size_t limit);
void live_blocks__free(struct live_blocks *lb);

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
size_t live_blocks__limit(const struct live_blocks *lb);
/* What the table costs in memory now, in bytes. */
size_t live_blocks__bytes(const struct live_blocks *lb);
struct live_blocks_losses live_blocks__over_limit(const struct live_blocks *lb);

#endif
