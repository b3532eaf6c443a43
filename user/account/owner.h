/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Who holds a process's memory: each allocation site's blocks still allocated
 * (outstanding), what it held when the process's attributed total peaked, what it
 * allocated in all; and the frees of blocks allocated before tracing. A free is taken from
 * the site that allocated the block, whichever thread frees it.
 *
 * The peak costs O(1) a call, not a copy of every site per new maximum: a generation
 * counter moves at each new maximum, and a site saves its value before its first change
 * in a generation, so its value at the last peak is either that saved value or, unchanged
 * since, its current one.
 *
 * Each site's figures are also kept per allocating thread (struct owner_thread, for the
 * profiles' thread label): a live block names its site's record of the thread that
 * allocated it, so that a free reaches both at once, and an allocation finds its thread's
 * record first in its site's list (the most recent first).
 */
#ifndef HEAPTAP_OWNER_H
#define HEAPTAP_OWNER_H

#include <stdbool.h>
#include <stdint.h>
#include "leak_series.h"
#include "live_blocks.h"
#include "node_total.h"
#include "stack_records.h"

struct owner_site {
	const struct stack_record *record; /* NULL: calls whose stack was not recorded */
	uint64_t allocated_blocks, allocated_bytes; /* every block it returned (usable) */
	uint64_t blocks, bytes, requested;	    /* outstanding now */
	uint64_t peak_blocks, peak_bytes;	    /* saved at the generation peak_gen */
	uint64_t peak_gen;
	/* --sample-bytes: the samples outstanding, and the variance of bytes' estimate */
	uint64_t samples;
	double variance;
	struct leak_series *series; /* outstanding bytes over time; NULL until it held any */
	uint32_t threads; /* its first thread record, the most recently used (0: none) */
};

/* One thread's share of one site's figures: what the blocks it allocated there did. */
struct owner_thread {
	uint32_t site; /* the site's index */
	uint32_t tid;  /* 0: the blocks of a site whose thread record could not be made */
	uint32_t next; /* the site's next thread record (0: none) */
	uint64_t allocated_blocks, allocated_bytes;
	uint64_t blocks, bytes;
	uint64_t peak_blocks, peak_bytes, peak_gen;
};

/* Frees of blocks heaptap never saw allocated (allocated before tracing, or not kept). */
struct unknown_frees {
	uint64_t calls, bytes;
	bool bytes_known; /* the allocator's block headers gave their sizes (glibc) */
};

struct owner {
	struct live_blocks *live;
	struct owner_site *sites; /* [0] the unrecorded stacks' */
	uint32_t nr_sites, sites_capacity;
	struct owner_thread *threads; /* [0] site 0's, without a thread: when out of memory */
	uint32_t nr_threads, threads_capacity;
	uint64_t blocks, bytes;		  /* the attributed total: outstanding, all sites */
	uint64_t peak_blocks, peak_bytes; /* the total at its maximum */
	uint64_t generation;		  /* moves at each new maximum */
	struct unknown_frees freed_before_tracing;
	uint64_t samples; /* of outstanding bytes, taken every `interval` seconds */
	double interval;
	uint64_t sample_bytes; /* --sample-bytes R: its figures are estimates (0: exact) */
	bool sites_dropped; /* ended, its sites freed to keep ended processes within budget */
	struct node_total *node;   /* the node's sum this process counts in (NULL: none) */
	struct node_log *node_log; /* where its changes to that sum go: its consumer's */
	uint64_t event_ns;	   /* the time of the call being counted, its event's */
	/* Its part of the node's sum in the calls' order: the node's merge's (node_total.c). */
	struct node_site_value *node_sites; /* by site index */
	uint32_t nr_node_sites;
	uint64_t node_bytes, node_blocks;
	bool node_ended;
};

/* 0 or -ENOMEM. live_limit: blocks kept at most (0: the default). */
int owner__init(struct owner *o, size_t live_limit, double interval);
/* --sample-bytes R: the blocks it is given are sampled ones, weighed by 1/p. */
void owner__set_sampling(struct owner *o, uint64_t sample_bytes);
void owner__clear(struct owner *o);
/* The process ended: its live blocks are forgotten; the sites keep what they held. */
void owner__end(struct owner *o);
/* Memory its sites and their leak series take: part of what an ended process keeps. */
size_t owner__sites_bytes(const struct owner *o);
/* Free the sites of an ended process; its totals and peak stay. */
void owner__drop_sites(struct owner *o);

/*
 * A block allocated at addr by the call whose stack is site (NULL: unrecorded), on thread
 * b.tid. b's site is set here (to its site's thread record). Past the live-block limit it
 * counts in site's allocations only.
 */
void owner__allocated(struct owner *o, struct stack_record *site, uint64_t addr,
		      struct live_block b);
/*
 * The block at addr released (free, realloc): taken from its site, into *out. False when
 * never seen allocated: then counted among the frees before tracing, with header_bytes
 * (what the allocator's header said, when bytes_known).
 */
bool owner__released(struct owner *o, uint64_t addr, uint64_t header_bytes, bool bytes_known,
		     struct live_block *out);
/* Each site's outstanding bytes now, seconds into tracing, for the leak test (every interval). */
void owner__sample(struct owner *o, double seconds);

/* What the site held when the total last peaked. */
static inline uint64_t owner_site__peak_bytes(const struct owner *o, const struct owner_site *s)
{
	return s->peak_gen == o->generation ? s->peak_bytes : s->bytes;
}

static inline uint64_t owner_site__peak_blocks(const struct owner *o,
					       const struct owner_site *s)
{
	return s->peak_gen == o->generation ? s->peak_blocks : s->blocks;
}

/* What one thread's blocks of a site held when the total last peaked. */
static inline uint64_t owner_thread__peak_bytes(const struct owner *o,
						const struct owner_thread *t)
{
	return t->peak_gen == o->generation ? t->peak_bytes : t->bytes;
}

static inline uint64_t owner_thread__peak_blocks(const struct owner *o,
						 const struct owner_thread *t)
{
	return t->peak_gen == o->generation ? t->peak_blocks : t->blocks;
}

/*
 * Count o in node's sum from now on (o holds nothing yet), its changes logged in log with
 * the time the caller sets in o->event_ns before each call it counts.
 */
static inline void owner__join_node(struct owner *o, struct node_total *node,
				    struct node_log *log)
{
	o->node = node;
	o->node_log = log;
}

/*
 * What the site held when the node's sum last peaked (0: nothing, or the process had
 * ended), once the node's journals are merged.
 */
static inline uint64_t owner_site__node_bytes(const struct owner *o, const struct owner_site *s)
{
	return o->node ? node_total__site_at_peak(o->node, o, (uint32_t)(s - o->sites)).peak_bytes
		       : 0;
}

static inline uint64_t owner_site__node_blocks(const struct owner *o,
					       const struct owner_site *s)
{
	return o->node ? node_total__site_at_peak(o->node, o, (uint32_t)(s - o->sites)).peak_blocks
		       : 0;
}

/* Site indexes sorted by outstanding bytes, largest first (then by allocated bytes). */
uint32_t *owner__by_outstanding(const struct owner *o, uint32_t *nr);
/* ... by bytes held at the peak. */
uint32_t *owner__by_peak(const struct owner *o, uint32_t *nr);
/* ... by bytes held when the node's sum last peaked. */
uint32_t *owner__by_node_peak(const struct owner *o, uint32_t *nr);
/* ... by bytes allocated while traced. */
uint32_t *owner__by_allocated(const struct owner *o, uint32_t *nr);

#endif
