/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The mappings of a process, read from /proc/PID/maps. */
#ifndef HEAPTAP_PROCMAPS_H
#define HEAPTAP_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mapping {
	uint64_t start, end; /* [start, end) */
	uint64_t offset;     /* file offset of start */
	uint64_t dev;	     /* makedev(major, minor) */
	uint64_t inode;
	bool readable, writable, executable;
	char *path; /* as shown in maps ("" for anonymous); owned */
};

struct procmaps {
	struct mapping *maps; /* sorted by start */
	size_t nr;
};

/* Parse maps text (the format of /proc/PID/maps). Returns 0 or -errno. */
int procmaps__parse(const char *text, struct procmaps *out);
/*
 * The code (executable) mappings of pid, all that heaptap uses: through the PROCMAP_QUERY
 * ioctl (Linux >= 6.11), else parsed from /proc/PID/maps. 0 or -errno (-ESRCH: the
 * process is gone).
 */
int procmaps__read(pid_t pid, struct procmaps *out);
/*
 * A path that opens the very file pid maps at m: /proc/PID/map_files/ (root only), or the
 * mapped path through /proc/PID/root while it still names the same inode. 0, or -ESTALE
 * when only the path is left and it names another file now (a library upgraded under a
 * running job: out then holds that path), or -errno.
 */
int procmaps__file_path(pid_t pid, const struct mapping *m, char *out, size_t size);
/*
 * Carry over into fresh every code mapping of old that no mapping of fresh overlaps: code
 * unmapped since (a dlclose) still names the frames of calls made before. 0 or -ENOMEM.
 */
int procmaps__keep_unmapped_code(struct procmaps *fresh, const struct procmaps *old);
/* Does any mapping of pm overlap m? */
bool procmaps__overlaps(const struct procmaps *pm, const struct mapping *m);
/* The mapping containing addr, or NULL. */
const struct mapping *procmaps__find(const struct procmaps *pm, uint64_t addr);
void procmaps__clear(struct procmaps *pm);

#endif
