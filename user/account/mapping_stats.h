/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The OS view's bookkeeping for one process: mapped bytes current/min/max per group (the
 * whole process, each thread, library and function), by kind and the allocator's own part,
 * the calls that moved them, what madvise gave back, and the process's RSS over time.
 * Pure bookkeeping, as the accountant: it is told what each call moved and whom to charge.
 */
#ifndef HEAPTAP_MAPPING_STATS_H
#define HEAPTAP_MAPPING_STATS_H

#include <stdint.h>
#include <uthash.h>
#include "address_ranges.h"
#include "heaptap_types.h"
#include "stack_records.h"
#include "strpool.h"

struct map_balance {
	int64_t current, min, max;	 /* mapped bytes charged, every kind */
	int64_t kinds[NR_MAP_KINDS];	 /* current, by kind */
	int64_t heap;			 /* current: the allocator's own mappings and break */
	uint64_t calls[HT_NR_OS_CALLS];	 /* failed calls included */
	uint64_t released_calls;	 /* madvise MADV_DONTNEED / MADV_FREE that succeeded */
	uint64_t released_bytes;	 /* their ranges: memory given back, still mapped */
	uint64_t before_tracing_calls;	 /* calls that unmapped bytes mapped before tracing */
	uint64_t before_tracing_bytes;	 /* those bytes: never charged, so never subtracted */
};

/* What one system call did. */
struct os_move {
	enum ht_os_call call;
	struct range_change change;
	uint64_t released; /* madvise: bytes given back */
};

enum map_group_kind { MAP_GROUP_THREAD, MAP_GROUP_LIBRARY, MAP_GROUP_FUNCTION, MAP_GROUP_STACK };

/* A frame of a call's stack, named as every report names it (strings in the stats' pool). */
struct map_frame {
	const char *library, *function;
};

struct map_group {
	char *key; /* the kind, then the tid or the library (and '\0' function) */
	size_t key_len;
	enum map_group_kind kind;
	uint32_t tid;
	char name[16];
	const char *library, *function; /* in key */
	/* MAP_GROUP_STACK: one call's kind made from one stack, its frames from it outwards */
	enum ht_os_call call;
	bool complete;
	const struct map_frame *frames; /* in key */
	size_t nr_frames;
	struct map_balance bal;
	UT_hash_handle hh;
};

struct rss_sample {
	double t;	/* seconds since tracing began */
	uint64_t bytes; /* resident set size */
};

struct mapping_stats {
	struct map_balance total;
	struct map_group *groups; /* threads, libraries, functions, stacks; mapping_stats__sort */
	struct strpool names;	  /* the stacks' frame names */
	size_t nr_stacks;
	struct address_ranges ranges;
	bool ranges_known; /* seeded with what was mapped before tracing */
	struct rss_sample *rss;
	size_t nr_rss, cap_rss;
	/* The most ever resident (VmHWM) as the kernel counted it at exit; 0: not known. */
	uint64_t rss_peak;
};

/* A call and the group it is charged to. */
struct os_charge {
	const struct os_move *move;
	uint32_t tid;
	const char *thread_name;
	const char *library, *function;
	/* The call's whole stack, from the call (or the malloc it served) outwards; NULL: unknown */
	const struct stack_frame *frames;
	size_t nr_frames;
	bool complete;
};

void map_balance__apply(struct map_balance *b, const struct os_move *m);
/* 0 or -ENOMEM (then nothing was charged anywhere). */
int mapping_stats__charge(struct mapping_stats *ms, const struct os_charge *c);
/*
 * A thread's (tid, name), library's or function's figures as read back from a store
 * (heaptap report DB): set, not charged. 0 or -ENOMEM.
 */
int mapping_stats__set(struct mapping_stats *ms, enum map_group_kind kind, uint32_t tid,
		       const char *name, const char *library, const char *function,
		       const struct map_balance *b);
/* 0 or -ENOMEM. */
int mapping_stats__add_rss(struct mapping_stats *ms, double t, uint64_t bytes);
/* The largest resident set known: of the samples, and the peak the kernel counted. */
uint64_t mapping_stats__rss_max(const struct mapping_stats *ms);
/*
 * Threads by tid, then libraries by name, then functions by library and name, then stacks
 * by their largest mapped bytes (max), most first.
 */
void mapping_stats__sort(struct mapping_stats *ms);
/* Did the process make any call the OS view counts? */
bool mapping_stats__any(const struct mapping_stats *ms);
/* The process ended: its address ranges go, its figures stay for the report. */
void mapping_stats__end(struct mapping_stats *ms);
/* What its per-stack groups take (for --tree-budget), and dropping them (the rest stays). */
size_t mapping_stats__stacks_bytes(const struct mapping_stats *ms);
void mapping_stats__drop_stacks(struct mapping_stats *ms);
void mapping_stats__clear(struct mapping_stats *ms);

extern const char *const ht_os_call_names[HT_NR_OS_CALLS];
extern const char *const map_kind_names[NR_MAP_KINDS];

#endif
