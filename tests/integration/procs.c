// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "procs.h"

/* /proc/PID/stat's comm (in buf) and the fields after it; false if no such process. */
static bool read_stat(pid_t pid, char *comm, size_t comm_size, char *state, pid_t *parent)
{
	char path[64], buf[1024], *open_paren, *close_paren;
	FILE *f;
	size_t n;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: it ends at the last ')'. */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return false;
	if (comm)
		snprintf(comm, comm_size, "%.*s", (int)(close_paren - open_paren - 1),
			 open_paren + 1);
	if (sscanf(close_paren + 1, " %c %d", state, &ppid) != 2)
		return false;
	*parent = ppid;
	return true;
}

char proc_state(pid_t pid)
{
	char state;
	pid_t parent;

	return read_stat(pid, NULL, 0, &state, &parent) ? state : 0;
}

pid_t proc_parent(pid_t pid)
{
	char state;
	pid_t parent;

	return read_stat(pid, NULL, 0, &state, &parent) ? parent : 0;
}

const char *proc_comm(pid_t pid, char *buf, size_t size)
{
	char state;
	pid_t parent;

	if (!read_stat(pid, buf, size, &state, &parent))
		snprintf(buf, size, "?");
	return buf;
}

/* Every process's pid and parent, from one walk of /proc; how many. */
static size_t all_processes(pid_t *pids, pid_t *parents, size_t max)
{
	DIR *dir = opendir("/proc");
	struct dirent *d;
	size_t n = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < max) {
		pid_t pid = atoi(d->d_name);
		char state;

		if (pid > 0 && read_stat(pid, NULL, 0, &state, &parents[n]))
			pids[n++] = pid;
	}
	closedir(dir);
	return n;
}

#define MAX_PROCESSES 8192

pid_t proc_child(pid_t parent, const char *comm)
{
	static pid_t pids[MAX_PROCESSES], parents[MAX_PROCESSES];
	size_t n = all_processes(pids, parents, MAX_PROCESSES);
	char name[64];

	for (size_t i = 0; i < n; i++) {
		if (parents[i] == parent &&
		    (!comm || !strcmp(proc_comm(pids[i], name, sizeof(name)), comm)))
			return pids[i];
	}
	return 0;
}

size_t proc_descendants(pid_t root, pid_t *out, size_t max)
{
	static pid_t pids[MAX_PROCESSES], parents[MAX_PROCESSES];
	size_t n = all_processes(pids, parents, MAX_PROCESSES), found = 0;

	/* Breadth first: out[] is its own queue of parents still to look under. */
	for (size_t next = 0;; next++) {
		pid_t parent = next == 0 ? root : (next <= found ? out[next - 1] : 0);

		if (!parent)
			break;
		for (size_t i = 0; i < n && found < max; i++) {
			if (parents[i] == parent)
				out[found++] = pids[i];
		}
	}
	return found;
}

long proc_fd_count(pid_t pid)
{
	char path[64];
	struct dirent *d;
	long n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		n += d->d_name[0] != '.';
	closedir(dir);
	return n;
}

bool proc_catches_signal(pid_t pid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "SigCgt: %llx", &mask) == 1;
	fclose(f);
	return found && (mask >> (sig - 1) & 1);
}

long proc_rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	}
	fclose(f);
	return kib;
}

size_t proc_bpf_links(pid_t pid, unsigned int *out, size_t max)
{
	char path[512], target[128], line[256];
	struct dirent *d;
	size_t n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < max) {
		ssize_t len;
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, d->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "anon_inode:bpf_link"))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f) && n < max) {
			if (sscanf(line, "link_id: %u", &out[n]) == 1) {
				n++;
				break;
			}
		}
		fclose(f);
	}
	closedir(dir);
	return n;
}

long bpftool_link_ids(unsigned int *out, size_t max, char *err, size_t err_size)
{
	FILE *p = popen("bpftool link show -j 2>&1", "r");
	char *text = NULL;
	size_t len = 0;
	json_object *links;
	long n = 0;
	int status;

	if (!p) {
		snprintf(err, err_size, "cannot run bpftool");
		return -1;
	}
	if (getdelim(&text, &len, '\0', p) < 0) {
		free(text);
		text = strdup("");
	}
	status = pclose(p);
	links = json_tokener_parse(text);
	if (status != 0 || !links || !json_object_is_type(links, json_type_array)) {
		snprintf(err, err_size, "bpftool link show -j failed (status %d): %.200s", status,
			 text);
		free(text);
		json_object_put(links);
		return -1;
	}
	free(text);
	for (size_t i = 0; i < json_object_array_length(links) && (size_t)n < max; i++) {
		json_object *id;

		if (json_object_object_get_ex(json_object_array_get_idx(links, i), "id", &id))
			out[n++] = json_object_get_int64(id);
	}
	json_object_put(links);
	return n;
}
