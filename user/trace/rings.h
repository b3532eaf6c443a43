/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The rings events come in, one per shard of processes (ht_shard_of): each a ring of
 * ordered events and a ring of held loader events, read ahead of it by a thread of its own. Made here and put in
 * the BPF arrays of rings; read by one consumer thread per shard.
 */
#ifndef HEAPTAP_RINGS_H
#define HEAPTAP_RINGS_H

#include <stddef.h>
#include <stdint.h>

struct rings;

/* An event of a shard, on the thread that consumes it; non-zero stops the consume. */
typedef int (*rings_event_fn)(void *ctx, unsigned shard, const void *data, size_t size);

struct rings_callbacks {
	rings_event_fn on_event, on_hold;
	void (*tick)(void *ctx); /* every few hundred events, while a backlog is read */
	void *ctx;
};

/* Events delivered by one rings__consume at most. */
#define RINGS_BATCH_EVENTS 16384

/*
 * nr shards of ring_bytes each (a power of two pages), in the BPF arrays events_fd and
 * holds_fd. 0 or -errno.
 */
int rings__new(int events_fd, int holds_fd, unsigned nr, uint64_t ring_bytes,
	       const struct rings_callbacks *cb, struct rings **out);
void rings__free(struct rings *r);

/* Wait up to timeout_ms for the shard's ring to wake its consumer. >= 0, or -errno. */
int rings__wait(struct rings *r, unsigned shard, int timeout_ms);
/* Deliver up to RINGS_BATCH_EVENTS of the shard's events. */
int rings__consume(struct rings *r, unsigned shard);
/* Deliver whatever every ring holds. */
int rings__drain(struct rings *r);
/*
 * The shard's held loader events, read by a thread of their own (one a shard): a held
 * process waits for no consumer's backlog. Wait up to timeout_ms for any; deliver every
 * one queued.
 */
int rings__wait_holds(struct rings *r, unsigned shard, int timeout_ms);
int rings__consume_holds(struct rings *r, unsigned shard);

/* A shard's ring: its size, its fill now, and the most it held while it was read. */
struct ring_fill {
	uint64_t bytes, now, peak;
};
struct ring_fill rings__fill(const struct rings *r, unsigned shard);

#endif
