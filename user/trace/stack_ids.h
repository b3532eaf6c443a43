/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The stack ids one program's call events brought. The BPF stacks map keeps their frames:
 * the event that gave an id brings them too, so they are read from the map only when the
 * symbolizer must resolve an id again. When the program is done with them (it exited, or
 * runs another), its ids are deleted from the map.
 */
#ifndef HEAPTAP_STACK_IDS_H
#define HEAPTAP_STACK_IDS_H

#include <pthread.h>
#include <stddef.h>
#include "heaptap_types.h"

struct stack_ids {
	int map_fd; /* the BPF stacks map */
	__u64 *owned; /* each id once: the map gives an id out once per stack stored */
	size_t nr, cap;
};

/*
 * id was given to this program (its event has HT_F_STACK_NEW). 0 or -ENOMEM. An id the
 * node shares (HT_STACK_ID_SHARED) is nobody's: it stays in the map while heaptap runs.
 */
int stack_ids__own(struct stack_ids *ids, __u64 id);
/*
 * The stack of id, read from the map into *out, as the map keeps it (a shared one by its
 * files: symbolizer__place). 0, or -ENOENT when the map lacks it.
 */
int stack_ids__frames(const struct stack_ids *ids, __u64 id, struct ht_stack *out);

/*
 * Ids whose programs are done with them, to be deleted from the BPF map in one batch:
 * only when the map has no room left for new stacks (their events then carry their frames
 * inline: nothing is lost), or before a new process could meet its pid's old ids. Never
 * when heaptap ends, since the map goes with it: deleting an MPI rank's ~20,000 ids costs
 * more CPU than the rest of its exit.
 */
struct dead_ids {
	int map_fd;
	/*
	 * Its own lock, not the session's: a rank's ids take milliseconds to delete, which
	 * nobody else waiting for the session's lock (a held process) should wait. Taken
	 * after the session's lock when both are.
	 */
	pthread_mutex_t lock;
	__u64 *keys;
	size_t nr, cap;
};

void dead_ids__init(struct dead_ids *dead, int map_fd);

/* Hand every id over to dead, for deletion from the BPF map. */
void stack_ids__bury(struct stack_ids *ids, struct dead_ids *dead);
/* Forget every id here only: the map is about to go. */
void stack_ids__clear(struct stack_ids *ids);
/*
 * Delete the queued ids from the BPF map now; a caller that finds them being deleted
 * waits until they are. Returns how many it deleted.
 */
size_t dead_ids__delete(struct dead_ids *dead);
/* Ids queued (a hint, without the lock). */
static inline size_t dead_ids__queued(struct dead_ids *dead)
{
	return __atomic_load_n(&dead->nr, __ATOMIC_RELAXED);
}
/* Free the queue without deleting (the map goes with heaptap). */
void dead_ids__free(struct dead_ids *dead);

/*
 * Delete every id the node shares (HT_STACK_ID_SHARED) from the map at map_fd, whoever
 * gave it (a shared id's first event may have been lost): found by walking the map's
 * keys. Returns how many it deleted.
 */
size_t stack_ids__delete_shared(int map_fd);

#endif
