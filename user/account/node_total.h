/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The node's total: what every traced process of one heaptap holds at once (their owner
 * totals added up, owner.h), its peak, when, and each site's value at that peak: the peak
 * of the sum in the order the calls were made, not the sum of the processes' peaks (which
 * came at different moments).
 *
 * Each consumer thread reads its own ring, at its own lag, so the order in which calls are
 * read is not their order across rings. Each call's change to the sum is therefore logged
 * with the time BPF stamped on its event (CLOCK_MONOTONIC) in its consumer's journal, and
 * the journals are merged in time order, as perf orders the events of its per-CPU buffers:
 * a change is applied once every journal has been read past its time (each consumer says
 * up to when its ring has been read). The merge keeps its own copy of each site's value,
 * so that a site's value at the peak is exact in the merged order too; it costs O(1) a
 * call as a process's peak does: a generation moves at each new maximum, and a site saves
 * its value before its first change in a generation.
 */
#ifndef HEAPTAP_NODE_TOTAL_H
#define HEAPTAP_NODE_TOTAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct owner;

/* The change one call made to one site of one process (site NODE_OWNER_ENDS: all of them). */
struct node_change {
	uint64_t time_ns;
	struct owner *owner;
	int64_t bytes, blocks;
	uint32_t site;
};

#define NODE_OWNER_ENDS UINT32_MAX

/* A site's part of the node's sum, as the merge has it (in the calls' order). */
struct node_site_value {
	uint64_t bytes, blocks;
	uint64_t peak_bytes, peak_blocks, peak_gen; /* saved at the node's generation peak_gen */
};

/* One consumer's changes, in the order it read them. */
struct node_journal {
	struct node_change *changes;
	size_t first, nr, capacity; /* changes[first..nr) are not merged yet */
	uint64_t read_to_ns;	    /* its ring holds no call made before this any more */
};

struct node_total {
	pthread_mutex_t lock; /* the journals' hand-over, the merge and the figures below */
	struct node_journal *journals;
	unsigned nr_journals;
	uint64_t started_ns;		  /* tracing began (peak_seconds counts from it) */
	uint64_t blocks, bytes;		  /* held, every process, as far as merged */
	uint64_t peak_blocks, peak_bytes; /* at the largest sum so far */
	uint64_t generation;		  /* moves at each new maximum */
	double peak_seconds;		  /* when: the time of the call that made it */
};

/*
 * A consumer's changes of one batch, not handed over yet: filled without the lock
 * (node_log__add), handed over once a batch (node_total__publish).
 */
struct node_log {
	struct node_change *changes;
	size_t nr, capacity;
	bool out_of_memory; /* a change could not be kept: the node's figures are short */
};

/* 0 or -ENOMEM. */
int node_total__init(struct node_total *n, unsigned consumers, uint64_t started_ns);
void node_total__clear(struct node_total *n);

void node_log__add(struct node_log *log, const struct node_change *change);
void node_log__clear(struct node_log *log);

/*
 * Consumer idx's changes of its last batch, its ring read up to read_to_ns: into its
 * journal, then every change that all journals are past is merged. read_to_ns UINT64_MAX
 * with every consumer stopped: merge everything.
 */
void node_total__publish(struct node_total *n, unsigned idx, struct node_log *log,
			 uint64_t read_to_ns);

/*
 * What site index of o held when the node's sum last peaked (0: nothing, or o had
 * ended). Under n's lock, or with the consumers stopped.
 */
struct node_site_value node_total__site_at_peak(const struct node_total *n,
						const struct owner *o, uint32_t site);

static inline void node_total__lock(struct node_total *n)
{
	if (n)
		pthread_mutex_lock(&n->lock);
}

static inline void node_total__unlock(struct node_total *n)
{
	if (n)
		pthread_mutex_unlock(&n->lock);
}

#endif
