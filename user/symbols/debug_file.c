// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "debug_file.h"

int debug_file__root_len(const char *path)
{
	const char *root_end = strstr(path, "/root/");

	return !strncmp(path, "/proc/", 6) && root_end ? root_end - path + 5 : 0;
}

/* Is the file at path the one a debug link names: its CRC32 the one recorded? */
static bool crc_matches(const char *path, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, NULL, 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, n);
	close(fd);
	return n == 0 && crc == want;
}

char *debug_file__find(const struct elfsyms *syms, const char *open_path)
{
	int root = debug_file__root_len(open_path), dir_len;
	const char *id = elfsyms__build_id(syms), *name = open_path + root, *link;
	uint32_t crc;
	char path[4096];

	if (id && strlen(id) >= 3) {
		snprintf(path, sizeof(path), "%.*s/usr/lib/debug/.build-id/%.2s/%s.debug", root,
			 open_path, id, id + 2);
		if (!access(path, R_OK))
			return strdup(path);
	}
	link = elfsyms__debuglink(syms, &crc);
	if (!link || !strrchr(name, '/'))
		return NULL;
	dir_len = strrchr(name, '/') - name;
	for (int where = 0; where < 3; where++) {
		snprintf(path, sizeof(path), where == 0 ? "%.*s%.*s/%s" :
					     where == 1 ? "%.*s%.*s/.debug/%s" :
							  "%.*s/usr/lib/debug%.*s/%s",
			 root, open_path, dir_len, name, link);
		/* Not the file itself: a debug link may name its own file. */
		if (strcmp(path + root, name) && !access(path, R_OK) && crc_matches(path, crc))
			return strdup(path);
	}
	return NULL;
}
