/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Who holds a process's memory, as an agent sends it: the largest sites, bounded. */
#ifndef HEAPTAP_OWNER_WIRE_H
#define HEAPTAP_OWNER_WIRE_H

#include <stdint.h>
#include "arena.h"
#include "heaptap.pb-c.h"
#include "oom_record.h"
#include "owner.h"

/*
 * o's totals and frees of blocks allocated before tracing, its largest sites by outstanding
 * bytes, by bytes at the peak and by bytes allocated (at most WIRE_MAX_OWNER_SITES each,
 * fewer once the message passes about max_bytes; the largest site of each list always).
 * With oom (NULL: none) killed, what it held when the OOM killer chose it.
 * *bytes: about what it takes on the wire. NULL when out of memory.
 */
Heaptap__Owner *wire_owner(struct arena *a, const struct owner *o, const struct oom_record *oom,
			   size_t max_bytes, size_t *bytes);
/* A digest of what m says (0: out of memory): an Owner goes only when it changed. */
uint64_t wire_owner_digest(const Heaptap__Owner *m);

#endif
