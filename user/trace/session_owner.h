/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A target's owner figures and samples: who holds its memory, and its totals over time. */
#ifndef HEAPTAP_SESSION_OWNER_H
#define HEAPTAP_SESSION_OWNER_H

#include "movement.h"
#include "session.h"

/*
 * The blocks a call released and returned, into t's owner figures; moved->delta gains
 * what only the live-block table knows (sizes under allocators other than glibc), or,
 * under --sample-bytes, becomes the estimate. now: its consumer's clock (monotonic
 * seconds). Its change to the node's sum is logged at the event's time.
 */
void track_owner(struct target *t, const struct ht_call_event *ev, enum ht_func func,
		 struct stack_record *site, struct movement *moved, double now);
/*
 * Every interval: t's sites' outstanding bytes, for the leak test, and its total
 * (processes[].samples) at since_start seconds.
 */
void sample_target(struct target *t, double now, double since_start);
/* t's total now, as its series' last sample so far (it ended, or tracing stops). */
void sample_total_now(struct target *t, double since_start);

#endif
