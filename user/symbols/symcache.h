/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ELF data per mapped file, shared by every traced process: eight ranks mapping the same
 * libmpi read its symbols once. Files are keyed by device and inode. What the files keep
 * (symbols, call sites, the answers cached from them) stays within a budget, per file and
 * in all (budget.h): what does not fit is left out, counted, and warned about once a file.
 *
 * Several threads may use one cache at once (one per consumer of events). Files, once
 * found, stay until symcache__free; what a file loads lazily, the budget and the answers
 * are changed under the cache's lock (symcache__lock), which every function here takes
 * itself. Answers (object_file__answer) are read without it, from a table of stripes
 * under read-write locks (answer_table.h): readers do not wait on each other.
 */
#ifndef HEAPTAP_SYMCACHE_H
#define HEAPTAP_SYMCACHE_H

#include <stdbool.h>
#include <stdint.h>
#include "budget.h"
#include "elfsyms.h"
#include "callsite.h"
#include "funcstarts.h"
#include "inlines.h"
#include "procmaps.h"
#include "strpool.h"

struct call_answer;
struct defined_name;
struct symcache;

/* What a file did not get for the budget (object_file.left_out). */
enum {
	LEFT_OUT_SYMBOLS = 1 << 0, /* a symbol table (.symtab, or every one) */
	LEFT_OUT_DEBUG = 1 << 1,   /* its separate debug file's symbols */
	LEFT_OUT_CALLS = 1 << 2,   /* its call sites (entry points told apart by the caller) */
	LEFT_OUT_CACHE = 1 << 3,   /* answers no longer cached: read again each new stack */
	LEFT_OUT_STARTS = 1 << 4,  /* its function starts (.eh_frame): unnamed code by offset */
	LEFT_OUT_DWARF = 1 << 5,   /* its DWARF: no inlined functions, no source lines */
	LEFT_OUT_LAST = LEFT_OUT_DWARF,
};

struct object_file {
	uint64_t dev, inode;
	char *open_path;	 /* where heaptap found it (through /proc/PID/root) */
	/*
	 * /proc/self/fd/N of a descriptor held from first sight: the file stays readable
	 * after the process that mapped it is gone (symbols and call sites load lazily).
	 */
	char read_path[32];
	int fd;
	struct elfsyms *syms;	 /* NULL when unreadable or not ELF */
	struct callsite *calls;	 /* loaded on first use */
	bool calls_tried;
	struct call_answer *answers; /* what call sites were found to call, by return offset */
	struct defined_name *defined; /* names looked up in syms, and whether it defines them */
	char *debug_path;	 /* its separate debug file, found by build id or debug link */
	struct funcstarts *starts; /* loaded on first use */
	bool starts_tried;
	struct inlines *dwarf;	 /* its own DWARF or its debug file's, loaded on first use */
	bool dwarf_tried;
	struct strpool names;	 /* the strings of its answers (object_file__keep_answer) */
	struct symcache *cache;
	uint64_t bytes;	      /* charged to the budget: all of the above */
	uint64_t cache_bytes; /* of which answers and defined names */
	unsigned int left_out;		 /* LEFT_OUT_*: what the budget refused */
	enum budget_verdict over_budget; /* the limit that refused it first */
};

/* A cache within the default budget (SYMBOL_BUDGET_FILE, SYMBOL_BUDGET_TOTAL). */
struct symcache *symcache__new(void);
void symcache__free(struct symcache *cache);
/*
 * Hold the cache's lock (recursive), for work that must see one state of a file: naming
 * code and keeping the answer. Every function here takes it too; answers are read without.
 */
void symcache__lock(struct symcache *cache);
void symcache__unlock(struct symcache *cache);
/* Change the limits; files already read keep what they have. */
void symcache__set_limits(struct symcache *cache, const struct budget_limits *limits);
const struct budget *symcache__budget(const struct symcache *cache);
/* The files after prev (NULL: the first), in the order they were first seen; NULL at the end. */
const struct object_file *symcache__next(const struct symcache *cache,
					 const struct object_file *prev);
/* "symbols", "debug symbols", "call sites", "cached names": for one LEFT_OUT_* bit. */
const char *left_out_name(unsigned int bit);
/* The file's path as the traced process names it (open_path without /proc/PID/root). */
const char *object_file__name(const struct object_file *obj);

/* The file, loaded on first sight from open_path. NULL only when out of memory. */
struct object_file *symcache__get(struct symcache *cache, uint64_t dev, uint64_t inode,
				  const char *open_path);
/*
 * The file pid maps at m, loaded on first sight from the very file mapped (not another one
 * its path names now). NULL only when out of memory.
 */
struct object_file *symcache__get_mapped(struct symcache *cache, pid_t pid,
					 const struct mapping *m);
/* Its function starts and its DWARF, loaded on first use; NULL when there are none. */
const struct funcstarts *object_file__starts(struct object_file *obj);
struct inlines *object_file__dwarf(struct object_file *obj);
/*
 * Room for a cached entry of size bytes more (charged to the file: true), else false, and
 * the file is told once that its answers are no longer cached.
 */
bool object_file__cache_room(struct object_file *obj, size_t size);
/* Its call sites, loaded on first use; NULL when they cannot be read. */
const struct callsite *object_file__calls(struct object_file *obj);

/*
 * callsite__callee and callsite__direct_target of the call before ret_offset, each read
 * from the file once: the same return addresses recur in many stacks.
 */
const char *object_file__callee(struct object_file *obj, uint64_t ret_offset);
bool object_file__direct_target(struct object_file *obj, uint64_t ret_offset, uint64_t *target);
/* Where the file defines the function name (elfsyms__offset_of), 0 if not; remembered. */
uint64_t object_file__offset_of(struct object_file *obj, const char *name);
/* Does the file define the function name (object_file__offset_of != 0)? */
bool object_file__defines(struct object_file *obj, const char *name);

/*
 * Answers of a layer above about the file, by a key of theirs (an offset, and what kind of
 * answer): immutable blobs, the same for every process that maps the file, kept until the
 * cache is freed. Their strings belong in obj->names (interned under symcache__lock).
 */
/* The answer kept under key, or NULL. Any thread, without the cache's lock. */
const void *object_file__answer(const struct object_file *obj, uint64_t key);
/*
 * Keep a copy of size bytes of answer under key, charged to the file with the bytes of its
 * strings: the copy kept (the one kept first, when another thread was first), or NULL
 * when the budget has no room (then the file is told once) or no memory is left.
 */
const void *object_file__keep_answer(struct object_file *obj, uint64_t key, const void *answer,
				     size_t size, size_t strings);

#endif
