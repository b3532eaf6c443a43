/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What one malloc-family call moved, from its raw arguments and results. */
#ifndef HEAPTAP_MOVEMENT_H
#define HEAPTAP_MOVEMENT_H

#include <stdbool.h>
#include <stdint.h>
#include "heaptap_types.h"

struct movement {
	int64_t delta;	    /* usable bytes allocated minus usable bytes released */
	uint64_t requested; /* bytes asked for, when the call returned a block */
	uint64_t released;  /* the block the call gave back (free, realloc), 0: none */
	uint64_t returned;  /* the block it handed out, 0: none (failed, or a free) */
	uint64_t calls;	    /* the calls it stands for: 1; sampled, an estimate (1/p) */
};

/*
 * func is the entry point actually called (aliases resolved). With usable_known false (an
 * allocator whose block sizes cannot be read), requested bytes stand in for usable ones.
 */
struct movement movement_of(const struct ht_call_event *ev, enum ht_func func, bool usable_known);

#endif
