/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The distinct stacks that called the allocator in one process, symbolized, with their
 * call counts: the call tree's paths, and --stacks. Stacks are told apart by their frames'
 * files and names, so the same code path seen before and after a dlopen() is one record;
 * detailed records (--stacks) also by each frame's offset, raw symbol and source line.
 * Without --stacks, the paths through one function's different call sites are one record:
 * an Open MPI rank has ~25,000 distinct detailed stacks of ~25 frames, too many to keep
 * for a tree that does not need them.
 */
#ifndef HEAPTAP_STACK_RECORDS_H
#define HEAPTAP_STACK_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uthash.h>
#include "strpool.h"

/*
 * One frame as naming.h names it. A return address whose code has functions inlined at it
 * gives several frames, the same library and offset, all but the last inlined.
 */
struct stack_frame {
	const char *library; /* path as mapped */
	uint64_t offset;     /* file offset of the pc (a return address past frame 0) */
	const char *function; /* source name, or "file+0xoffset" */
	const char *symbol;   /* raw symbol, NULL for inlined frames and unnamed code */
	const char *file;     /* source file, NULL when unknown */
	int line;	      /* 0 when unknown */
	bool inlined;	      /* inlined into the next frame */
	bool tail_called;     /* not on the stack: it tail-called the next inner frame */
};

struct calltree_path;

struct stack_record {
	struct stack_frame *frames; /* [0] the allocator entry point, outwards */
	size_t nr;
	bool complete;
	uint32_t site; /* as an allocation site, its index in the owner's figures; 0: none */
	uint64_t calls;
	struct calltree_path *tree_path; /* the call tree's nodes it charges (calltree.h) */
	void *key; /* completeness, then the frames (frames points into it) */
	UT_hash_handle hh;
};

struct record_model;

struct stack_records {
	struct stack_record *by_key;
	struct record_model *by_model; /* records made like another set's (intern_like) */
	bool detailed;	     /* keep offsets, raw symbols, source lines and frame kinds */
	struct strpool names; /* every string the records' frames point to */
	size_t bytes;	     /* of records and their frames (not the names) */
	void *scratch;	     /* the key being looked up */
	size_t scratch_len;
};

/*
 * The record for these frames (copied: without detailed, only their library and function),
 * created with 0 calls if new; NULL if no memory.
 */
struct stack_record *stack_records__intern(struct stack_records *r,
					   const struct stack_frame *frames, size_t nr,
					   bool complete);
/*
 * The record here like model, a record of another set kept unchanged as long as this one
 * remembers it (the node's, symbols/node_stacks.h): found by model's address once made
 * here. Many of a process's stacks share a record: ~5,000 records for ~23,000 stacks of an
 * Open MPI rank. NULL if no memory.
 */
struct stack_record *stack_records__intern_like(struct stack_records *r,
						const struct stack_record *model);
/* Forget the models seen (they are about to go): records made from them stay. */
void stack_records__forget_models(struct stack_records *r);
void stack_records__clear(struct stack_records *r);
/*
 * The program is gone: keep only the records that are allocation sites (their frames name
 * the owner's figures), without their call tree paths (dropped with the program's).
 */
void stack_records__keep_sites(struct stack_records *r);

#endif
