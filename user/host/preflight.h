/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Can heaptap run here at all: checked before anything is loaded or any target touched. */
#ifndef HEAPTAP_PREFLIGHT_H
#define HEAPTAP_PREFLIGHT_H

/* The oldest kernel heaptap runs on: uprobe_multi links (6.6), bpf_loop (5.17). */
#define HEAPTAP_MIN_KERNEL_MAJOR 6
#define HEAPTAP_MIN_KERNEL_MINOR 6

/*
 * The running kernel is recent enough, and heaptap is in the initial PID namespace (BPF
 * sees the host's process ids). EXIT_OK, or EXIT_FAILURE_INTERNAL after one line.
 */
int preflight_check(void);

/* Is a kernel release ("6.18.44-fc-v769") at least major.minor? 1, 0, or -EINVAL. */
int kernel_release_at_least(const char *release, int major, int minor);

#endif
