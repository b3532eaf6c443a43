// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "cgroup_memory.h"

TestSuite(cgroup_memory);

static struct cgroup_memory parse(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct cgroup_memory cg;

	cr_assert(f != NULL);
	cgroup_memory__parse(f, &cg, false);
	fclose(f);
	return cg;
}

static char *dir_of(const struct cgroup_memory *cg)
{
	static char dir[sizeof("/sys/fs/cgroup/memory") + CGROUP_PATH_MAX];

	cgroup_memory__dir(cg, dir, sizeof(dir));
	return dir;
}

Test(cgroup_memory, v1_memory_hierarchy_first)
{
	struct cgroup_memory cg = parse("9:name=systemd:/\n5:cpu,memory:/slurm/uid_0/job_7\n"
					"0::/user.slice\n");

	cr_expect(eq(int, cg.version, 1));
	cr_expect(eq(str, cg.path, "/slurm/uid_0/job_7"));
	cr_expect(eq(str, dir_of(&cg), "/sys/fs/cgroup/memory/slurm/uid_0/job_7"));
}

Test(cgroup_memory, v2_alone)
{
	struct cgroup_memory cg = parse("0::/system.slice/job.scope\n");

	cr_expect(eq(int, cg.version, 2));
	cr_expect(eq(str, dir_of(&cg), "/sys/fs/cgroup/system.slice/job.scope"));
}

Test(cgroup_memory, the_root_and_a_name_that_only_ends_in_memory)
{
	struct cgroup_memory cg = parse("3:nomemory:/x\n4:memory:/\n");

	cr_expect(eq(int, cg.version, 1));
	cr_expect(eq(str, dir_of(&cg), "/sys/fs/cgroup/memory"));
	cg = parse("3:name=memoryless:/x\n");
	cr_expect(eq(int, cg.version, 0), "no memory hierarchy, no v2 line");
}

/* A long path (a container's, say) whole; one longer than a line is passed over, not cut. */
Test(cgroup_memory, a_long_path_whole_and_a_longer_one_passed_over)
{
	char path[CGROUP_PATH_MAX - 64], text[3 * CGROUP_PATH_MAX], want[sizeof(path) + 32];
	struct cgroup_memory cg;

	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	snprintf(text, sizeof(text), "4:memory:%s\n", path);
	cg = parse(text);
	cr_expect(eq(int, cg.version, 1));
	cr_expect(eq(str, cg.path, path));
	snprintf(want, sizeof(want), "/sys/fs/cgroup/memory%s", path);
	cr_expect(eq(str, dir_of(&cg), want));

	snprintf(text, sizeof(text), "4:memory:%s%s\n0::/user.slice\n", path, path);
	cg = parse(text);
	cr_expect(eq(int, cg.version, 2), "the memory line too long to keep, the v2 line taken");
	cr_expect(eq(str, cg.path, "/user.slice"));
}
