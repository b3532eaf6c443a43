/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A call's raw stack (the probed entry point, then return addresses) as the frames a user
 * reads: each named by naming.h, a return address whose code has inlined functions giving
 * one frame per function, and a function that left the stack by a tail call put back where
 * the call instruction before a return address shows it. Attribution and --stacks (and the
 * call tree) work on these frames.
 */
#ifndef HEAPTAP_NAMED_STACK_H
#define HEAPTAP_NAMED_STACK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "allocator_object.h"
#include "heaptap_types.h"
#include "frame_names.h"
#include "naming.h"
#include "procmaps.h"
#include "symcache.h"

/* Room for every raw frame, its inlined functions and the tail calls found. */
#define NAMED_STACK_MAX (HT_MAX_FRAMES * 4)

struct named_stack_frame {
	struct named_frame name;
	const struct mapping *m; /* the mapping of its code */
	/*
	 * File offset of its pc: frame 0's entry point, a return address, or where a function
	 * found by its tail call starts.
	 */
	uint64_t offset;
	bool in_executable; /* in the program's main executable */
	bool in_allocator;  /* in the object that provides malloc */
	bool tail_called;   /* not on the stack: it tail-called the next inner frame */
};

/*
 * The frames a process's stacks went through last, by pc: its stacks share most frames
 * (main, MPI_Init, ...), and a slot here costs no lock and no lookup in the shared cache.
 * A slot also keeps where the frame's call went, for the function below it, which the
 * tail-call check otherwise looks up by name in the files mapped. Owned by the process's
 * symbolizer, emptied whenever its mappings are read anew.
 */
#define FRAME_MEMO_BITS 10
#define FRAME_MEMO_SLOTS (1 << FRAME_MEMO_BITS)

struct frame_memo {
	struct {
		__u64 pc; /* 0: empty */
		const struct mapping *m;
		struct object_file *obj;
		const struct frame_names *names; /* kept in the shared cache */
		/* The function its call went to, found for a function below in asked_for. */
		const struct object_file *asked_for;
		const struct mapping *asked_m;
		int callee_found; /* 0: not asked yet, 1: found, -1: not found */
		struct object_file *callee_obj;
		const struct mapping *callee_m;
		uint64_t callee_start;
	} slots[FRAME_MEMO_SLOTS];
};

/* What naming a stack needs of its process, which outlives the call. */
struct stack_context {
	pid_t pid;
	struct symcache *cache;
	const struct procmaps *maps; /* its code mappings */
	const struct allocator *alloc;
	uint64_t exe_dev, exe_inode;
	struct frame_memo *memo; /* NULL: none */
};

struct named_stack {
	struct named_stack_frame frames[NAMED_STACK_MAX]; /* [0] the entry point, outwards */
	size_t nr;
	uint32_t valid;	      /* raw frames in a mapping, the entry point included */
	bool cut;	      /* a frame lay in no mapping: everything beyond was dropped */
	uint64_t end_dev, end_inode; /* the file of the outermost raw frame (0: none) */
	const char *caller_symbol; /* raw symbol of raw frame 1's function, or NULL */
};

/*
 * Name the stack pcs[0, nr) of a call to func (already told apart from its aliases). 0, or
 * -ENOMEM.
 */
int named_stack__build(const struct stack_context *ctx, enum ht_func func, const __u64 *pcs,
		       __u32 nr, struct named_stack *out);
/*
 * ... of a call to another entry point (an --allocator API's): entry_name at entry_offset of
 * ctx->alloc's file, which stands for that API's object.
 */
int named_stack__build_from(const struct stack_context *ctx, const char *entry_name,
			    uint64_t entry_offset, const __u64 *pcs, __u32 nr,
			    struct named_stack *out);

#endif
