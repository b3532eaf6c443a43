// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * oom_grow CGROUP_DIR: moves itself into the memory cgroup CGROUP_DIR (its cgroup.procs),
 * allocates 4 MiB at side_site, then grows from grow_site by 1 MiB blocks, each touched,
 * until the OOM killer ends it. It never returns normally: exit status 3 says it could
 * not join the cgroup, 4 that malloc failed before the killer came.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK (1u << 20)

static void join(const char *dir)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f)) {
		perror(path);
		exit(3);
	}
}

__attribute__((noinline)) static void *side_site(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void *grow_site(size_t n)
{
	return malloc(n);
}

int main(int argc, char **argv)
{
	void *side;

	if (argc != 2) {
		fprintf(stderr, "usage: oom_grow CGROUP_DIR\n");
		return 2;
	}
	join(argv[1]);
	side = side_site(4 * BLOCK);
	if (!side)
		return 4;
	memset(side, 1, 4 * BLOCK);
	for (;;) {
		char *p = grow_site(BLOCK);

		if (!p)
			return 4;
		memset(p, 1, BLOCK); /* charged to the cgroup only once touched */
		usleep(2000);
	}
}
