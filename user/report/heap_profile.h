/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A heap profile: what --pprof and --folded write, filled alike from a live session
 * (profile_session.c) and from a stored report (profile_input.c), so that one encoder of
 * each format serves both. A sample is one allocation stack of one process (and thread,
 * where the figures are kept per thread) with its figures; adding the same stack and
 * labels again adds to that sample, so the report's outstanding, peak and allocated lists
 * meet in one sample per stack.
 */
#ifndef HEAPTAP_HEAP_PROFILE_H
#define HEAPTAP_HEAP_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "stack_records.h"

/* A sample's figures, by allocation stack. */
enum profile_value {
	PROFILE_ALLOC_BLOCKS, /* allocation calls made through the stack while traced */
	PROFILE_ALLOC_BYTES,  /* their usable bytes */
	PROFILE_INUSE_BLOCKS, /* blocks still allocated when tracing ended (outstanding) */
	PROFILE_INUSE_BYTES,
	PROFILE_PEAK_BLOCKS,  /* blocks held when the process's total was at its max */
	PROFILE_PEAK_BYTES,
	PROFILE_NR_VALUES,
};
#define PROFILE_VALUE(v) (1u << (v))

/* Who a sample belongs to. */
struct profile_labels {
	int pid;
	int rank; /* -1: not an MPI rank */
	int tid;  /* 0: the process's threads together */
};

struct profile_sample {
	struct profile_labels labels;
	const struct stack_frame *frames; /* [0] the allocator entry point, outwards */
	size_t nr;
	int64_t values[PROFILE_NR_VALUES];
};

struct heap_profile;

/* The frame that stands for stacks not recorded: its function, and its library. */
#define PROFILE_UNRECORDED "(stack not recorded)"
#define PROFILE_UNRECORDED_LIBRARY "[unrecorded]"

/* An empty profile, or NULL when out of memory. */
struct heap_profile *heap_profile__new(void);
void heap_profile__free(struct heap_profile *p);

/*
 * Add values (those whose PROFILE_VALUE bit is in known; the others are ignored) to the
 * sample of these frames and labels, made if new. The frames' strings are copied (function,
 * library, file; offset, line and inlined kept; raw symbols dropped). No frames (calls
 * whose stacks heaptap could not record) make the one frame PROFILE_UNRECORDED, so that
 * their figures still count. 0 or -ENOMEM.
 */
int heap_profile__add(struct heap_profile *p, const struct profile_labels *labels,
		      const struct stack_frame *frames, size_t nr, const int64_t *values,
		      unsigned int known);
/* The figures some sample was given (PROFILE_VALUE bits): absent ones the source lacked. */
unsigned int heap_profile__known(const struct heap_profile *p);
/* Samples carry a tid: the figures were kept per thread. */
bool heap_profile__per_thread(const struct heap_profile *p);
/* The frames' inlined flags are known (a live session's detailed stacks). */
void heap_profile__set_inline_known(struct heap_profile *p);
bool heap_profile__inline_known(const struct heap_profile *p);

/* The samples, in the order they were first added. Valid until the profile changes. */
size_t heap_profile__samples(const struct heap_profile *p,
			     const struct profile_sample *const **out);
/* Keep only the samples of MPI rank rank; returns how many remain. */
size_t heap_profile__keep_rank(struct heap_profile *p, int rank);

/* Remember library's build id (hex), as its file says. 0 or -ENOMEM. */
int heap_profile__set_build_id(struct heap_profile *p, const char *library, const char *hex);
/* The build id remembered for library, or NULL. */
const char *heap_profile__build_id(const struct heap_profile *p, const char *library);

/* Remember the name of thread tid of process pid. 0 or -ENOMEM. */
int heap_profile__set_thread_name(struct heap_profile *p, int pid, int tid, const char *name);
/* The name remembered for that thread, or NULL. */
const char *heap_profile__thread_name(const struct heap_profile *p, int pid, int tid);

/* When the figures were taken (seconds since the epoch), and over how long; 0: unknown. */
void heap_profile__set_time(struct heap_profile *p, double when, double duration);
void heap_profile__time(const struct heap_profile *p, double *when, double *duration);
/*
 * --sample-bytes R of the figures (0: exact): pprof's period, the bytes between samples,
 * as Go's heap profiles give MemProfileRate. The values are the estimates already.
 */
void heap_profile__set_sample_bytes(struct heap_profile *p, uint64_t sample_bytes);
uint64_t heap_profile__sample_bytes(const struct heap_profile *p);

#endif
