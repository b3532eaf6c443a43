// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "procfs.h"

int procfs_read(pid_t pid, const char *name, char **buf, size_t *len)
{
	size_t cap = 4096, used = 0;
	char path[64], *data = NULL;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	for (;;) {
		char *grown = realloc(data, cap + 1);
		ssize_t n;

		if (!grown) {
			err = -ENOMEM;
			goto cleanup;
		}
		data = grown;
		n = read(fd, data + used, cap - used);
		if (n < 0) {
			err = -errno;
			goto cleanup;
		}
		if (n == 0)
			break;
		used += n;
		if (used == cap)
			cap *= 2;
	}
	data[used] = '\0';
	*buf = data;
	*len = used;
	data = NULL;
cleanup:
	free(data);
	close(fd);
	return err;
}

void procfs_root_path(pid_t pid, const char *path, char *out, size_t size)
{
	/* /proc/PID/root reaches files in the target's mount namespace (containers). */
	snprintf(out, size, "/proc/%d/root%s", pid, path);
}

char procfs_stat_state(const char *stat)
{
	/* "pid (comm) S ...": comm may hold spaces and parentheses; the last ')' ends it. */
	const char *after_comm = strrchr(stat, ')');

	return after_comm && after_comm[1] == ' ' ? after_comm[2] : 0;
}

bool procfs_comm(pid_t pid, char *name, size_t size)
{
	size_t len;
	char *comm;

	if (procfs_read(pid, "comm", &comm, &len))
		return false;
	comm[strcspn(comm, "\n")] = '\0';
	snprintf(name, size, "%s", comm);
	free(comm);
	return true;
}

char procfs_state(pid_t pid)
{
	char *stat, state;
	size_t len;

	if (procfs_read(pid, "stat", &stat, &len))
		return 0;
	state = procfs_stat_state(stat);
	free(stat);
	return state;
}

uid_t procfs_status_uid(const char *status)
{
	/* "Uid:\treal\teffective\tsaved\tfs" on a line of its own. */
	const char *line = status;
	unsigned long uid;
	char *end;

	while (line && strncmp(line, "Uid:", 4)) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!line)
		return (uid_t)-1;
	errno = 0;
	uid = strtoul(line + 4, &end, 10);
	if (errno || end == line + 4 || (*end != '\t' && *end != ' ' && *end != '\n') ||
	    uid >= (uid_t)-1)
		return (uid_t)-1;
	return uid;
}

uid_t procfs_uid(pid_t pid)
{
	char *status;
	size_t len;
	uid_t uid;

	if (procfs_read(pid, "status", &status, &len))
		return (uid_t)-1;
	uid = procfs_status_uid(status);
	free(status);
	return uid;
}
