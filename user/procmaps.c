// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "procfs.h"
#include "procmaps.h"

/* One line: start-end perms offset major:minor inode [path]. 0 or -EINVAL. */
static int parse_line(const char *line, struct mapping *m)
{
	unsigned int major, minor;
	char perms[5];
	int path_at = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n",
		   &m->start, &m->end, perms, &m->offset, &major, &minor, &m->inode,
		   &path_at) < 7)
		return -EINVAL;
	m->dev = makedev(major, minor);
	m->readable = perms[0] == 'r';
	m->writable = perms[1] == 'w';
	m->executable = perms[2] == 'x';
	/* The path runs to the end of the line, spaces and " (deleted)" included. */
	m->path = strdup(path_at ? line + path_at : "");
	return m->path ? 0 : -ENOMEM;
}

int procmaps__parse(const char *text, struct procmaps *out)
{
	struct procmaps pm = {};
	size_t cap = 0;
	int err = 0;

	while (*text) {
		size_t len = strcspn(text, "\n");
		char *line = strndup(text, len);

		text += len + (text[len] == '\n');
		if (!line) {
			err = -ENOMEM;
			break;
		}
		if (pm.nr == cap) {
			struct mapping *grown;

			cap = cap ? cap * 2 : 64;
			grown = realloc(pm.maps, cap * sizeof(*grown));
			if (!grown) {
				free(line);
				err = -ENOMEM;
				break;
			}
			pm.maps = grown;
		}
		err = len ? parse_line(line, &pm.maps[pm.nr]) : 0;
		free(line);
		if (err)
			break;
		pm.nr += len > 0;
	}
	if (err) {
		procmaps__clear(&pm);
		return err;
	}
	*out = pm; /* the kernel lists mappings in address order */
	return 0;
}

int procmaps__read(pid_t pid, struct procmaps *out)
{
	size_t len;
	char *text;
	int err = procfs_read(pid, "maps", &text, &len);

	if (err)
		return err;
	err = procmaps__parse(text, out);
	free(text);
	return err;
}

int procmaps__file_path(pid_t pid, const struct mapping *m, char *out, size_t size)
{
	struct stat st;

	snprintf(out, size, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start, m->end);
	if (stat(out, &st) == 0 && st.st_ino == m->inode)
		return 0;
	procfs_root_path(pid, m->path, out, size);
	if (stat(out, &st))
		return -errno;
	return st.st_ino == m->inode ? 0 : -ESTALE;
}

static bool overlaps_any(const struct procmaps *pm, const struct mapping *m)
{
	for (size_t i = 0; i < pm->nr; i++) {
		if (pm->maps[i].start < m->end && m->start < pm->maps[i].end)
			return true;
	}
	return false;
}

static int by_start(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int procmaps__keep_unmapped_code(struct procmaps *fresh, const struct procmaps *old)
{
	size_t kept = 0;

	for (size_t i = 0; i < old->nr; i++) {
		const struct mapping *m = &old->maps[i];
		struct mapping *grown;

		if (!m->executable || m->path[0] != '/' || overlaps_any(fresh, m))
			continue;
		grown = realloc(fresh->maps, (fresh->nr + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		fresh->maps = grown;
		fresh->maps[fresh->nr] = *m;
		fresh->maps[fresh->nr].path = strdup(m->path);
		if (!fresh->maps[fresh->nr].path)
			return -ENOMEM;
		fresh->nr++;
		kept++;
	}
	if (kept)
		qsort(fresh->maps, fresh->nr, sizeof(*fresh->maps), by_start);
	return 0;
}

const struct mapping *procmaps__find(const struct procmaps *pm, uint64_t addr)
{
	size_t lo = 0, hi = pm->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mapping *m = &pm->maps[mid];

		if (addr < m->start)
			hi = mid;
		else if (addr >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

void procmaps__clear(struct procmaps *pm)
{
	for (size_t i = 0; i < pm->nr; i++)
		free(pm->maps[i].path);
	free(pm->maps);
	pm->maps = NULL;
	pm->nr = 0;
}
