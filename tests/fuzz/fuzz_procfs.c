// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * /proc/PID files: read whole (procfs_read, here of the input through /proc/self/fd/N),
 * then /proc/PID/stat's state letter after a command name that may hold anything, and
 * /proc/PID/status's real uid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz_file.h"
#include "procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	char name[32], *text;
	size_t len;

	/* path is /proc/self/fd/N: the same file as the process's fd/N. */
	snprintf(name, sizeof(name), "%s", path + strlen("/proc/self/"));
	if (procfs_read(getpid(), name, &text, &len))
		abort();
	/* The whole file, NUL-terminated: what every reader after it relies on. */
	if (len != size || memcmp(text, data, size) || text[len] != '\0')
		abort();
	procfs_stat_state(text);
	procfs_status_uid(text);
	free(text);
	return 0;
}
