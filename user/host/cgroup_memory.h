/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The memory cgroup a process runs in (a batch system's job limit), and its figures: v2
 * (memory.current, memory.max, memory.peak) or v1 (memory.usage_in_bytes,
 * limit_in_bytes, max_usage_in_bytes). The path is read from /proc/PID/cgroup when the
 * process is first seen: by the time the OOM killer chooses it, it may be gone. At the OOM
 * event the kernel's own figures come with it (cgroup_memory__from_kernel), when BPF could
 * read them: the files are the fallback.
 */
#ifndef HEAPTAP_CGROUP_MEMORY_H
#define HEAPTAP_CGROUP_MEMORY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The longest path /proc/PID/cgroup gives that is read: a line of 1024 bytes. */
#define CGROUP_PATH_MAX 1024

struct cgroup_memory {
	int version;	 /* 1 or 2; 0: no memory cgroup found */
	/* Within the hierarchy, as /proc/PID/cgroup says ("/" the root); a line's room. */
	char path[CGROUP_PATH_MAX];
	uint64_t usage, limit, max_usage; /* bytes; limit 0: none */
	bool usage_known, max_known;
};

/* Find pid's memory cgroup (cg->version 0 when it has none to read). 0 or -errno. */
int cgroup_memory__find(pid_t pid, struct cgroup_memory *cg);
/*
 * The same from a /proc/PID/cgroup text: v1's memory hierarchy first, else v2's (with
 * check_v2, only where its memory.current can be read: a hybrid's v2 has no memory).
 */
void cgroup_memory__parse(FILE *f, struct cgroup_memory *cg, bool check_v2);
/* Where its files are: /sys/fs/cgroup/memory + path (v1), /sys/fs/cgroup + path (v2). */
void cgroup_memory__dir(const struct cgroup_memory *cg, char *buf, size_t size);
/*
 * The figures the kernel gave at an event (pages of its memory cgroup's page counter), and
 * its path found by the cgroup directory's inode (kept as it was when not found).
 */
void cgroup_memory__from_kernel(struct cgroup_memory *cg, uint64_t ino, uint64_t usage_pages,
				uint64_t max_pages, uint64_t watermark_pages);
/* Read its figures now. 0, or -errno when its usage cannot be read (it is gone). */
int cgroup_memory__read(struct cgroup_memory *cg);

#endif
