/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The frames behind the stack ids of one process's call events: read from the BPF stacks
 * map the first time an id is seen, kept here, and deleted from the map when the process
 * is done with them (it exited, or runs another program).
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

/* The frames of id (nr in *nr), or NULL when the map does not have it. */
const __u64 *stack_ids__frames(struct stack_ids *ids, __u64 id, __u32 *nr);
/* Forget every id, here and in the BPF map. */
void stack_ids__release(struct stack_ids *ids);

#endif
