/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The node's total: what every traced process of one heaptap holds at once (their owner
 * totals added up, owner.h), kept as each call's event is read, so that its peak is the peak
 * of the sum in the order of the event stream, not the sum of the processes' peaks (which
 * came at different moments). Its sites at that peak cost O(1) a call as a process's do:
 * a generation moves at each new maximum, and a site saves its value before its first
 * change in a generation (owner_site__node_bytes).
 */
#ifndef HEAPTAP_NODE_TOTAL_H
#define HEAPTAP_NODE_TOTAL_H

#include <pthread.h>
#include <stdint.h>

/*
 * Shared by the processes of every consumer thread (each drains its own ring): lock is
 * held by owner.c for the whole of a change to one process's figures that moves the sum
 * (a site's value saved at the node's generation, then the sum and its peak), so that the
 * peak is the peak of one order of the calls. Zeroed, it is an unlocked default mutex.
 */
struct node_total {
	pthread_mutex_t lock;
	uint64_t blocks, bytes;		  /* held now, every process */
	uint64_t peak_blocks, peak_bytes; /* at the largest sum so far */
	uint64_t generation;		  /* moves at each new maximum */
	double peak_seconds;		  /* when, as the reader sets it (session clock) */
};

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
