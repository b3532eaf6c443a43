/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The fuzzers' input as a file: parsers of ELF files take a path, and heaptap hands them
 * /proc/self/fd/N of a descriptor it holds. One memfd, rewritten for every input, does the
 * same without touching the disk.
 */
#ifndef HEAPTAP_FUZZ_FILE_H
#define HEAPTAP_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[32];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz-input", MFD_CLOEXEC);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	/*
	 * Overwrite, then cut what the previous input left past this one's end: the file's
	 * pages are reused rather than freed and faulted in again for every input.
	 */
	if ((size && pwrite(fd, data, size, 0) != (ssize_t)size) || ftruncate(fd, size)) {
		perror("memfd");
		abort();
	}
	return path;
}

#endif
