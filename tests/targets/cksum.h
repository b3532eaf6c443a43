/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The checksum targets' work: allocations whose contents are hashed, and a dlopen and
 * dlclose of a plugin (and now and then of zlib) at every step. The result depends only
 * on the step numbers, so a traced run must print what an untraced one prints.
 */
#ifndef CKSUM_H
#define CKSUM_H

#include <stdint.h>

/* Load libm once and fold a value computed by it into h; 0 on failure. */
uint64_t cksum_libm(uint64_t h);
/* One step of work folded into h (dir: where libmix.so is); 0 on failure. */
uint64_t cksum_step(uint64_t h, int step, const char *dir);
/* The directory of the running program, for its plugins. */
const char *cksum_self_dir(void);
/* CLOCK_MONOTONIC in nanoseconds: comparable across processes. */
uint64_t cksum_now_ns(void);
/* Append "<what> <now_ns>\n" to fd (write(): no allocation, atomic per line). */
void cksum_mark(int fd, const char *what);
void cksum_sleep_ms(int ms);

#endif
