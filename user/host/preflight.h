/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Can heaptap run here at all: checked before anything is loaded or any target touched. */
#ifndef HEAPTAP_PREFLIGHT_H
#define HEAPTAP_PREFLIGHT_H

/*
 * The running kernel has every feature heaptap needs (kernel_features.h), and heaptap is in the initial PID namespace (BPF
 * sees the host's process ids). EXIT_OK, or EXIT_FAILURE_INTERNAL after one line.
 */
int preflight_check(void);

#endif
