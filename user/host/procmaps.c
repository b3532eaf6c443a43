// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "procfs.h"
#include "procmaps.h"

/* Add m, with a copy of its path, to pm, whose array has room for *cap. 0 or -ENOMEM. */
static int append(struct procmaps *pm, size_t *cap, const struct mapping *m)
{
	if (pm->nr == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 64;
		struct mapping *grown = realloc(pm->maps, grown_cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		pm->maps = grown;
		*cap = grown_cap;
	}
	pm->maps[pm->nr] = *m;
	pm->maps[pm->nr].path = strdup(m->path);
	if (!pm->maps[pm->nr].path)
		return -ENOMEM;
	pm->nr++;
	return 0;
}

/*
 * One line: start-end perms offset major:minor inode [path]. 0 or -EINVAL. m->path points
 * into line.
 */
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
	m->path = (char *)(path_at ? line + path_at : "");
	return 0;
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
		if (len) {
			struct mapping m;

			err = parse_line(line, &m);
			if (!err)
				err = append(&pm, &cap, &m);
		}
		free(line);
		if (err)
			break;
	}
	if (err) {
		procmaps__clear(&pm);
		return err;
	}
	*out = pm; /* the kernel lists mappings in address order */
	return 0;
}

/* struct procmap_query of <linux/fs.h> (Linux >= 6.11), which Debian 12's headers predate. */
struct procmap_query {
	__u64 size;
	__u64 query_flags;
	__u64 query_addr;
	__u64 vma_start;
	__u64 vma_end;
	__u64 vma_flags;
	__u64 vma_page_size;
	__u64 vma_offset;
	__u64 inode;
	__u32 dev_major;
	__u32 dev_minor;
	__u32 vma_name_size;
	__u32 build_id_size;
	__u64 vma_name_addr;
	__u64 build_id_addr;
};

#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)
#define PROCMAP_QUERY_VMA_READABLE 0x01
#define PROCMAP_QUERY_VMA_WRITABLE 0x02
#define PROCMAP_QUERY_VMA_EXECUTABLE 0x04
#define PROCMAP_QUERY_COVERING_OR_NEXT_VMA 0x10

/*
 * Ask the kernel for each code mapping in turn: no text to format and parse for the
 * hundreds of data mappings an MPI rank has, at each of its ~70 loader events.
 * -ENOTTY: the kernel cannot answer.
 */
static int query_code(int fd, struct procmaps *out)
{
	struct procmaps pm = {};
	char path[PATH_MAX];
	size_t cap = 0;
	__u64 addr = 0;
	int err = 0;

	for (;;) {
		struct procmap_query q = {
			.size = sizeof(q),
			.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA |
				       PROCMAP_QUERY_VMA_EXECUTABLE,
			.query_addr = addr,
			.vma_name_addr = (__u64)(uintptr_t)path,
			.vma_name_size = sizeof(path),
		};
		struct mapping m;

		if (ioctl(fd, PROCMAP_QUERY, &q)) {
			/*
			 * ENOENT: no mapping past addr. ESRCH: no memory at all (a kernel
			 * thread, a process gone), which the maps text shows as empty.
			 */
			err = errno == ENOENT || errno == ESRCH ? 0 : -errno;
			break;
		}
		if (!q.vma_name_size)
			path[0] = '\0'; /* anonymous: the kernel wrote no name */
		m = (struct mapping){
			.start = q.vma_start,
			.end = q.vma_end,
			.offset = q.vma_offset,
			.dev = makedev(q.dev_major, q.dev_minor),
			.inode = q.inode,
			.readable = q.vma_flags & PROCMAP_QUERY_VMA_READABLE,
			.writable = q.vma_flags & PROCMAP_QUERY_VMA_WRITABLE,
			.executable = true,
			.path = path,
		};
		if ((err = append(&pm, &cap, &m)))
			break;
		if (q.vma_end <= addr)
			break; /* never loop, whatever the kernel says */
		addr = q.vma_end;
	}
	if (err) {
		procmaps__clear(&pm);
		return err;
	}
	*out = pm;
	return 0;
}

/* The text of /proc/PID/maps, its code mappings kept. */
static int parse_code(pid_t pid, struct procmaps *out)
{
	struct procmaps all;
	size_t len, kept = 0;
	char *text;
	int err = procfs_read(pid, "maps", &text, &len);

	if (err)
		return err;
	err = procmaps__parse(text, &all);
	free(text);
	if (err)
		return err;
	/* Not the vsyscall page: it is the kernel's, and the kernel's answers omit it. */
	for (size_t i = 0; i < all.nr; i++) {
		if (all.maps[i].executable && strcmp(all.maps[i].path, "[vsyscall]"))
			all.maps[kept++] = all.maps[i];
		else
			free(all.maps[i].path);
	}
	all.nr = kept;
	*out = all;
	return 0;
}

int procmaps__read(pid_t pid, struct procmaps *out)
{
	static bool no_query; /* this kernel has no PROCMAP_QUERY */
	char maps[64];
	int fd, err;

	if (no_query)
		return parse_code(pid, out);
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	fd = open(maps, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	err = query_code(fd, out);
	close(fd);
	if (err == -ENOTTY || err == -EINVAL) {
		no_query = true;
		return parse_code(pid, out);
	}
	return err;
}

int procmaps__file_path(pid_t pid, const struct mapping *m, char *out, size_t size)
{
	struct stat st;
	char state;
	int err;

	snprintf(out, size, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start, m->end);
	if (stat(out, &st) == 0 && st.st_ino == m->inode)
		return 0;
	procfs_root_path(pid, m->path, out, size);
	if (stat(out, &st) == 0)
		return st.st_ino == m->inode ? 0 : -ESTALE;
	err = errno;
	state = procfs_state(pid);
	if (err != ENOENT || (state && state != 'Z' && state != 'X'))
		return -err;
	/*
	 * The process is gone, and its root with it (a short-lived process is named after it
	 * ended): the path as heaptap sees it, if that is the very file (same device and inode,
	 * so not another mount namespace's file of the same name).
	 */
	snprintf(out, size, "%s", m->path);
	if (stat(out, &st))
		return -errno;
	return st.st_dev == m->dev && st.st_ino == m->inode ? 0 : -ESTALE;
}

bool procmaps__overlaps(const struct procmaps *pm, const struct mapping *m)
{
	size_t lo = 0, hi = pm->nr;

	/* The first mapping ending past m's start (they are sorted and do not overlap). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->maps[mid].end <= m->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pm->nr && pm->maps[lo].start < m->end;
}

static int by_start(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int procmaps__keep_unmapped_code(struct procmaps *fresh, const struct procmaps *old)
{
	const size_t nr_fresh = fresh->nr; /* the sorted part, before mappings are kept */
	size_t cap = fresh->nr, kept = 0;

	for (size_t i = 0; i < old->nr; i++) {
		const struct mapping *m = &old->maps[i];

		if (!m->executable || m->path[0] != '/' ||
		    procmaps__overlaps(&(struct procmaps){ fresh->maps, nr_fresh }, m))
			continue;
		if (append(fresh, &cap, m))
			return -ENOMEM;
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
