/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The frames behind the stack ids of one process's call events: learnt from the event
 * that brought a new id (or, when another thread's event with that id came first, read
 * from the BPF stacks map), kept here, and deleted from the map when the process is done
 * with them (it exited, or runs another program).
 */
#ifndef HEAPTAP_STACK_IDS_H
#define HEAPTAP_STACK_IDS_H

#include <uthash.h>
#include "heaptap_types.h"

struct known_stack;

struct stack_ids {
	int map_fd; /* the BPF stacks map */
	struct known_stack *by_id;
};

/* Keep frames[0..nr) as id's, as the event that gave id brought them. 0 or -ENOMEM. */
int stack_ids__learn(struct stack_ids *ids, __u64 id, const __u64 *frames, __u32 nr);
/* The frames of id (nr in *nr), or NULL when the map does not have it. */
const __u64 *stack_ids__frames(struct stack_ids *ids, __u64 id, __u32 *nr);
/*
 * Ids whose processes are done with them, to be deleted from the BPF map in one batch:
 * only when the map has no room left for new stacks (their events then carry their frames
 * inline: nothing is lost), or before a new process could meet its pid's old ids. Never
 * when heaptap ends, since the map goes with it: deleting an MPI rank's ~20,000 ids costs
 * more CPU than the rest of its exit.
 */
struct dead_ids {
	int map_fd;
	__u64 *keys;
	size_t nr, cap;
};

/* Forget every id here, and queue them in dead for deletion from the BPF map. */
void stack_ids__bury(struct stack_ids *ids, struct dead_ids *dead);
/* Forget every id here only: the map is about to go. */
void stack_ids__clear(struct stack_ids *ids);
/* Delete the queued ids from the BPF map now. */
void dead_ids__delete(struct dead_ids *dead);
/* Free the queue without deleting (the map goes with heaptap). */
void dead_ids__free(struct dead_ids *dead);

#endif
