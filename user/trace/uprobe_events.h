/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Uprobes defined once in tracefs (uprobe_events) and shared by every traced process, for
 * kernels without uprobe_multi links. A uprobe PMU event is a probe of its own: closing it
 * removes the probe and waits for grace periods inside the kernel's event_mutex, ~0.1 s
 * each, one at a time. Perf events opened on one tracefs event share it: closing one takes
 * its process's breakpoints out and nothing more, and only the last reference, which
 * heaptap itself holds, pays the grace periods.
 */
#ifndef HEAPTAP_UPROBE_EVENTS_H
#define HEAPTAP_UPROBE_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Find tracefs, the holder, and remove what heaptaps that are gone left there, waiting (at
 * most 10 s) for one that just exited to finish: before any process is probed, since
 * those removals would delay each probe. 0, or why tracefs events cannot be used. Also
 * done by the first uprobe_events__open().
 */
int uprobe_events__prepare(void);

/*
 * Probe offset of path in pid through the shared event for (file, offset, direction,
 * program, cookie), defined on first use with the program linked to it. The fd of pid's
 * perf event, which close() takes out of pid alone; -EOPNOTSUPP where tracefs events
 * cannot be used here (the caller places a uprobe PMU event instead); else -errno.
 */
int uprobe_events__open(int prog_fd, const char *path, uint64_t offset, uint64_t cookie,
			pid_t pid, bool retprobe);

/*
 * Remove the shared events, once every process's events are closed: a child of heaptap's
 * drops the last references and deletes the definitions, so that heaptap exits without
 * waiting for their grace periods.
 */
void uprobe_events__release(void);

#endif
