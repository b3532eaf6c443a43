/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Balances and call counts per group: the whole process, each thread, each library, each
 * function. Pure bookkeeping: it is told what each call moved and whom to charge.
 */
#ifndef HEAPTAP_ACCOUNTANT_H
#define HEAPTAP_ACCOUNTANT_H

#include <stdbool.h>
#include <stdint.h>
#include <uthash.h>
#include "heaptap_types.h"

struct balance {
	int64_t current, min, max; /* usable bytes; min and max over the event order */
	uint64_t requested;	    /* bytes asked for by calls that returned a block */
	uint64_t calls[HT_NR_FUNCS];
};

struct thread_stats {
	uint32_t tid;
	char name[16];
	struct balance bal;
	bool calls_exact; /* sampled: bal.calls are its counted calls, not estimates */
	UT_hash_handle hh;
};

struct library_stats {
	char *library;
	struct balance bal;
	UT_hash_handle hh;
};

struct function_stats {
	char *key; /* library '\0' function: both as one hash key */
	const char *library, *function;
	struct library_stats *in; /* its library's group */
	struct balance bal;
	UT_hash_handle hh;
};

struct charge_memo;

struct process_stats {
	struct balance total;
	struct thread_stats *threads;
	struct library_stats *libraries;
	struct function_stats *functions;
	struct charge_memo *memo; /* the groups charged last, by their names' addresses */
};

/* What one call did, and the group it is charged to. */
struct charge {
	enum ht_func func;
	uint32_t tid;
	const char *thread_name;
	int64_t delta;	    /* usable bytes allocated minus usable bytes released */
	uint64_t requested; /* bytes asked for, when a block was returned */
	uint64_t calls;	    /* the calls it stands for: 0 or 1, one; sampled, an estimate */
	const char *library, *function;
};

/* calls: the calls it stands for (1; sampled: an estimate, 1/p). */
void balance__apply(struct balance *b, enum ht_func func, int64_t delta, uint64_t requested,
		    uint64_t calls);
/*
 * Add b to into, as if b's calls were into's too: current, requested and calls exactly;
 * min and max as sums, which bound the true extremes of the merged sequence.
 */
void balance__add(struct balance *into, const struct balance *b);
/* Returns 0 or -ENOMEM (then nothing was charged anywhere). */
int accountant__charge(struct process_stats *ps, const struct charge *c);
void accountant__clear(struct process_stats *ps);
/*
 * Set a group as another heaptap counted it (a stored or streamed run), creating it if
 * need be. 0 or -ENOMEM.
 */
int accountant__set_thread(struct process_stats *ps, uint32_t tid, const char *name,
			   const struct balance *b);
/*
 * --sample-bytes: calls of each function the thread made, counted exactly, added to what
 * was counted so far (several counts may come, a thread's and its tid's reuse). The first
 * replaces the thread's estimated calls, in the process's total too. 0 or -ENOMEM.
 */
int accountant__count_thread_calls(struct process_stats *ps, uint32_t tid, const char *name,
				   const uint64_t *calls);
int accountant__set_library(struct process_stats *ps, const char *library,
			    const struct balance *b);
int accountant__set_function(struct process_stats *ps, const char *library,
			     const char *function, const struct balance *b);
/* Calls charged so far, of every kind. */
uint64_t accountant__calls(const struct process_stats *ps);

/* Sorted views for reports: threads by tid, libraries and functions by name. */
void accountant__sort(struct process_stats *ps);

#endif
