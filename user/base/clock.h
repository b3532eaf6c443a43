/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The monotonic clock, as heaptap's loops and the BPF programs read it. */
#ifndef HEAPTAP_CLOCK_H
#define HEAPTAP_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in ns, as bpf_ktime_get_ns() sees it. */
uint64_t monotonic_ns(void);
/* Seconds on the monotonic clock. */
double now(void);

#endif
