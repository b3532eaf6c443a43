/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Small readers of /proc/PID files. */
#ifndef HEAPTAP_PROCFS_H
#define HEAPTAP_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Whole /proc/PID/<name> into a NUL-terminated malloc'ed buffer. 0 or -errno. */
int procfs_read(pid_t pid, const char *name, char **buf, size_t *len);
/* The first line of /proc/PID/comm (the program's name) into name; false if unreadable. */
bool procfs_comm(pid_t pid, char *name, size_t size);
/* The state letter of /proc/PID/stat ('R', 'S', 'Z'...), or 0 when it cannot be read. */
char procfs_state(pid_t pid);
/* The same from the text of a stat file. */
char procfs_stat_state(const char *stat);
/* The real uid of /proc/PID/status, or (uid_t)-1 when it cannot be read. */
uid_t procfs_uid(pid_t pid);
/* The same from the text of a status file. */
uid_t procfs_status_uid(const char *status);
/* A path inside the process's mount namespace, as heaptap can open it. */
void procfs_root_path(pid_t pid, const char *path, char *out, size_t size);

#endif
