/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the tests see of processes from outside, through /proc: their state (stopped or
 * not), their family, and what heaptap itself holds (descriptors, memory, BPF links).
 */
#ifndef HEAPTAP_TEST_PROCS_H
#define HEAPTAP_TEST_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Processes, from /proc/PID/stat: the state letter (0 when there is no such process),
 * the parent (0 if unknown), the command name (comm) in buf. A zombie is 'Z'.
 */
char proc_state(pid_t pid);
pid_t proc_parent(pid_t pid);
const char *proc_comm(pid_t pid, char *buf, size_t size);
/* The first child of parent named comm (NULL: any), or 0. */
pid_t proc_child(pid_t parent, const char *comm);
/* Every descendant of root (children, theirs, ...), up to max of them; how many. */
size_t proc_descendants(pid_t root, pid_t *out, size_t max);
/* Whether pid has a handler for signal sig (SigCgt): ready for it. */
bool proc_catches_signal(pid_t pid, int sig);
/* Descriptors open in pid, and its resident set in KiB (VmRSS); -1 when unknown. */
long proc_fd_count(pid_t pid);
long proc_rss_kib(pid_t pid);
/* The BPF link ids pid holds open (fdinfo link_id), up to max; how many. */
size_t proc_bpf_links(pid_t pid, unsigned int *out, size_t max);

/*
 * Every BPF link the kernel has, by id, as `bpftool link show -j` lists them, up to max;
 * how many, or -1 (with why in err) when bpftool cannot be run.
 */
long bpftool_link_ids(unsigned int *out, size_t max, char *err, size_t err_size);

#endif
