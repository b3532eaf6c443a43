/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What a node's processes share of their stacks. The BPF side keeps a stack whose every
 * frame lies in a file by file and offset (include/heaptap.h, HT_STACK_ID_SHARED), so the
 * ranks of an MPI job, running the same code from the same files, meet one id per call
 * path. Here are the numbers those files go by, and each shared stack's answer: named by
 * the first process that met it, taken by the others (rank 1 names a stack, ranks 2..N
 * look it up). One lock, held for a lookup or an insert only; answers are never changed
 * nor freed while the node's stacks live, so a reader keeps its pointer without the lock.
 */
#ifndef HEAPTAP_NODE_STACKS_H
#define HEAPTAP_NODE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "heaptap_types.h"
#include "resolved_call.h"
#include "stack_records.h"

/*
 * An answer holds for processes that see the same files as the same roles: the program's
 * own executable and the allocator are part of naming (the entry rule, glibc's own calls).
 */
struct node_answer_key {
	__u64 stack_id, func;
	__u64 exe_dev, exe_inode;
	__u64 alloc_dev, alloc_inode;
};

struct node_answer {
	struct node_answer_key key;
	struct resolved_call call; /* its record NULL: a process makes its own from model */
	/* The stack recorded, as the node keeps it (stack_records__intern_like); NULL: not */
	const struct stack_record *model;
};

struct node_stacks;

/* detailed: stacks are recorded with every frame's detail (--stacks), as processes do. */
struct node_stacks *node_stacks__new(bool detailed);
void node_stacks__free(struct node_stacks *n);

/* The number the file dev:inode goes by in shared stacks (made now if new); 0: no room. */
uint32_t node_stacks__file_id(struct node_stacks *n, uint64_t dev, uint64_t inode);
/* The file a number stands for; false for a number not given. No lock. */
bool node_stacks__file(const struct node_stacks *n, uint32_t id, uint64_t *dev,
		       uint64_t *inode);

/* The answer for key, or NULL. It stays valid, unchanged, as long as n. */
const struct node_answer *node_stacks__find(struct node_stacks *n,
					    const struct node_answer_key *key);
/*
 * Keep a copy of answer (its strings copied too, its record left out) and the stack it
 * recorded (frames, nr; NULL: none) as its model, unless an answer is kept for its key
 * already (another process named the stack meanwhile: the same answer). 0 or -ENOMEM.
 */
int node_stacks__publish(struct node_stacks *n, const struct node_answer *answer,
			 const struct stack_frame *frames, size_t nr);
/* Answers kept, for the report. */
size_t node_stacks__answers(struct node_stacks *n);
/*
 * Drop every answer and model (their stack ids are being deleted): only when no process
 * can be taking one, as no process is traced, and every process has forgotten the models
 * (stack_records__forget_models). Strings stay: what took an answer may point to its
 * names. Files keep their numbers.
 */
void node_stacks__forget_answers(struct node_stacks *n);

#endif
