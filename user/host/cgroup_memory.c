// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cgroup_memory.h"

#define V1_ROOT "/sys/fs/cgroup/memory"
#define V2_ROOT "/sys/fs/cgroup"
/* A cgroup's directory: the longer root and any path, whole (a cut one names another). */
#define DIR_MAX (sizeof(V1_ROOT) + CGROUP_PATH_MAX)

/* "N:controllers:/path": is memory among the controllers (v1)? */
static bool names_memory(const char *controllers, size_t len)
{
	for (const char *p = controllers; p < controllers + len;) {
		const char *comma = memchr(p, ',', controllers + len - p);
		size_t n = comma ? (size_t)(comma - p) : (size_t)(controllers + len - p);

		if (n == 6 && !memcmp(p, "memory", 6))
			return true;
		p += n + 1;
	}
	return false;
}

static void set(struct cgroup_memory *cg, int version, const char *path)
{
	cg->version = version;
	snprintf(cg->path, sizeof(cg->path), "%s", path);
}

void cgroup_memory__dir(const struct cgroup_memory *cg, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", cg->version == 1 ? V1_ROOT : V2_ROOT,
		 strcmp(cg->path, "/") ? cg->path : "");
}

int cgroup_memory__find(pid_t pid, struct cgroup_memory *cg)
{
	char name[64];
	FILE *f;

	snprintf(name, sizeof(name), "/proc/%d/cgroup", pid);
	f = fopen(name, "re");
	if (!f) {
		memset(cg, 0, sizeof(*cg));
		return -errno;
	}
	cgroup_memory__parse(f, cg, true);
	fclose(f);
	return 0;
}

void cgroup_memory__parse(FILE *f, struct cgroup_memory *cg, bool check_v2)
{
	char line[CGROUP_PATH_MAX], unified[sizeof(line)] = "";

	memset(cg, 0, sizeof(*cg));
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		char *first, *second;

		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			/* Longer than any path kept: passed over whole, not cut to name another. */
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			continue;
		}
		first = strchr(line, ':');
		second = first ? strchr(first + 1, ':') : NULL;
		if (!second)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (second == first + 1) /* "0::/path", the v2 hierarchy */
			snprintf(unified, sizeof(unified), "%s", second + 1);
		else if (names_memory(first + 1, second - first - 1)) {
			set(cg, 1, second + 1);
			break;
		}
	}
	/* v2 counts memory only where the memory controller is enabled (not in a hybrid). */
	if (!cg->version && unified[0]) {
		char dir[DIR_MAX], probe[sizeof(dir) + 32];

		set(cg, 2, unified);
		cgroup_memory__dir(cg, dir, sizeof(dir));
		snprintf(probe, sizeof(probe), "%s/memory.current", dir);
		if (check_v2 && access(probe, R_OK))
			memset(cg, 0, sizeof(*cg));
	}
}

/* A file's one number; "max" (v2's no limit) reads as 0. */
static int read_number(const struct cgroup_memory *cg, const char *file, uint64_t *out)
{
	char dir[DIR_MAX], name[sizeof(dir) + 64], text[64];
	FILE *f;
	bool ok;

	cgroup_memory__dir(cg, dir, sizeof(dir));
	snprintf(name, sizeof(name), "%s/%s", dir, file);
	f = fopen(name, "re");
	if (!f)
		return -errno;
	ok = fgets(text, sizeof(text), f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	*out = strncmp(text, "max", 3) ? strtoull(text, NULL, 10) : 0;
	return 0;
}

int cgroup_memory__read(struct cgroup_memory *cg)
{
	int err;

	if (!cg->version)
		return -ENOENT;
	if (cg->version == 2) {
		err = read_number(cg, "memory.current", &cg->usage);
		read_number(cg, "memory.max", &cg->limit);
		cg->max_known = !read_number(cg, "memory.peak", &cg->max_usage);
	} else {
		err = read_number(cg, "memory.usage_in_bytes", &cg->usage);
		read_number(cg, "memory.limit_in_bytes", &cg->limit);
		/* v1 says no limit with the largest page-aligned counter value. */
		if (cg->limit >= (UINT64_C(1) << 62))
			cg->limit = 0;
		cg->max_known = !read_number(cg, "memory.max_usage_in_bytes", &cg->max_usage);
	}
	cg->usage_known = !err;
	return err;
}

/* nftw's walk for one inode (nftw takes no context: one walk at a time, on one thread). */
static ino_t wanted_ino;
static char found[PATH_MAX];

static int match_ino(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_D || st->st_ino != wanted_ino)
		return 0;
	snprintf(found, sizeof(found), "%s", path);
	return 1;
}

void cgroup_memory__from_kernel(struct cgroup_memory *cg, uint64_t ino, uint64_t usage_pages,
				uint64_t max_pages, uint64_t watermark_pages)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct stat v1;
	bool is_v1 = !stat(V1_ROOT "/memory.usage_in_bytes", &v1);
	const char *root = is_v1 ? V1_ROOT : V2_ROOT;

	cg->usage = usage_pages * page;
	cg->usage_known = true;
	/* The page counter's "no limit" is LONG_MAX / PAGE_SIZE pages. */
	cg->limit = max_pages >= (uint64_t)LONG_MAX / page ? 0 : max_pages * page;
	cg->max_usage = watermark_pages * page;
	cg->max_known = true;
	wanted_ino = (ino_t)ino;
	found[0] = '\0';
	if (nftw(root, match_ino, 16, FTW_PHYS) == 1) {
		cg->version = is_v1 ? 1 : 2;
		snprintf(cg->path, sizeof(cg->path), "%s", found[strlen(root)] ?
							      found + strlen(root) : "/");
	}
}
