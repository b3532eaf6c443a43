/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The OS view's events on their way to the target's mapping stats, and its RSS samples. */
#ifndef HEAPTAP_OS_CALLS_H
#define HEAPTAP_OS_CALLS_H

#include <stddef.h>
#include "heaptap_types.h"

struct consumer;
struct session;
struct target;

/*
 * What t has mapped now, as mapped before tracing: unmapping it later is counted apart,
 * never charged. At attach and at exec (held there), before its calls are traced; its
 * first RSS sample too.
 */
void seed_mapped_ranges(struct session *s, struct target *t);

/* An HT_EV_OS_CALL event of size bytes (checked here). */
void handle_os_call(struct session *s, const struct ht_os_event *ev, size_t size);
/* Every interval, each of c's live targets' resident set size, from /proc/PID/statm. */
void sample_rss_when_due(struct session *s, struct consumer *c);
/*
 * The process's last resident set and its high-water mark, read by BPF as it exited
 * (HT_EV_EXIT): its last RSS sample, and its peak.
 */
void record_exit_rss(struct session *s, struct target *t, const struct ht_exit_event *ev);

#endif
