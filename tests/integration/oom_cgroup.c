// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "driver.h"
#include "oom_cgroup.h"

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fputs(text, f) < 0)
		err = -EIO;
	if (fclose(f))
		err = -errno;
	return err;
}

int oom_cgroup__make(struct oom_cgroup *cg)
{
	char limit[32];
	bool v2 = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;
	int err;

	snprintf(cg->path, sizeof(cg->path), "/heaptap-test-%d", getpid());
	snprintf(cg->dir, sizeof(cg->dir), "%s%s", v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory",
		 cg->path);
	if (mkdir(cg->dir, 0755) && errno != EEXIST)
		return -errno;
	snprintf(limit, sizeof(limit), "%lld", OOM_LIMIT_BYTES);
	if (v2) {
		err = write_file(cg->dir, "memory.max", limit);
		write_file(cg->dir, "memory.swap.max", "0");
	} else {
		err = write_file(cg->dir, "memory.limit_in_bytes", limit);
		write_file(cg->dir, "memory.memsw.limit_in_bytes", limit); /* no swap either */
	}
	return err;
}

void oom_cgroup__remove(struct oom_cgroup *cg)
{
	for (int tries = 0; tries < 100 && rmdir(cg->dir) && errno == EBUSY; tries++)
		sleep_ms(100);
}
