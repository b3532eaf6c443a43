/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * uprobe_multi links (Linux >= 6.6): one link probes many offsets of one file in one
 * process, and is created in one call and removed with one grace period (~25 ms here);
 * removals overlap, so they run on a pool of threads, off the event loop.
 * Kernels without them (kernel_features.h) get one perf event per offset and process,
 * behind the same calls: the same programs, at the same sites, with the same cookies.
 * On a uprobe event shared in tracefs (uprobe_events.h), a process's removal waits for no
 * grace period; on a uprobe PMU event of its own, each waits for one, serialized (~0.1 s).
 */
#ifndef HEAPTAP_UPROBE_LINKS_H
#define HEAPTAP_UPROBE_LINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel_features.h" /* HT_ATTACH_UPROBE_MULTI */

/*
 * The attach type the uprobe programs must be loaded with: HT_ATTACH_UPROBE_MULTI, or 0
 * (perf event uprobes) on a kernel without uprobe_multi links.
 */
unsigned int uprobe_links__attach_type(void);

/*
 * Probe offsets[0..nr) of path in pid (entry probes, or return probes with retprobe),
 * each with its cookie. One fd that stands for every probe (a uprobe_multi link, or a
 * group of perf events): close it with link_reaper__close(), never close(). -errno.
 */
int uprobe_multi__attach(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, size_t nr, pid_t pid, bool retprobe);

/* Before any process is probed: set up what the perf event fallback shares. */
void uprobe_links__prepare(void);

/*
 * After every link is closed: remove what the perf event fallback shares between
 * processes (uprobe_events__release).
 */
void uprobe_links__release(void);

/* Closes links on its own threads: removing a probe waits for a grace period. */
struct link_reaper;

struct link_reaper *link_reaper__new(unsigned int threads);
/*
 * Queue links to be closed: first, and only then then (either may be -1). One worker
 * closes both, so the order holds. Never blocks on the kernel.
 */
void link_reaper__close(struct link_reaper *r, int first, int then);
/* Wait until every queued link is closed. */
void link_reaper__flush(struct link_reaper *r);
/* Flush, then stop the threads. Accepts NULL. */
void link_reaper__free(struct link_reaper *r);

#endif
