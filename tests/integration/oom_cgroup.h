/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A memory cgroup limited to 128 MiB for the OOM tests, v1 or v2 as the machine mounts. */
#ifndef OOM_CGROUP_H
#define OOM_CGROUP_H

#include <json-c/json.h>

#define OOM_LIMIT_BYTES (128ll << 20)

struct oom_cgroup {
	char path[128]; /* as /proc/PID/cgroup names it */
	char dir[256];
};

/* 0, or -errno (no memory controller to use). */
int oom_cgroup__make(struct oom_cgroup *cg);
/* Waits until its processes are gone, then removes it. */
void oom_cgroup__remove(struct oom_cgroup *cg);
/* The oom of a report's process names grow_site (cgroup_path: also the cgroup's limit). */
void expect_oom_process(json_object *process, const char *cgroup_path);

#endif
