/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The C library and the dynamic loader heaptap runs with are, on its own host, those of
 * nearly every program it launches. Their symbols, debug symbols, function starts, call
 * sites and DWARF (~150 ms with libc6-dbg) are read into the cache on a thread of their
 * own while the BPF programs load, not while the first traced processes wait for them at
 * their first loader events. Only a cache is filled: a program that maps other files
 * gets them read as before.
 */
#ifndef HEAPTAP_WARMUP_H
#define HEAPTAP_WARMUP_H

#include "symcache.h"

struct warmup;

/* Start reading; nothing else may use cache until warmup__join. NULL if it cannot start. */
struct warmup *warmup__start(struct symcache *cache);
/* Wait until it is done, and free it (NULL: nothing to wait for). */
void warmup__join(struct warmup *w);

#endif
