/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What a mapping system call moved, from its event, applied to the process's ranges. */
#ifndef HEAPTAP_OS_MOVE_H
#define HEAPTAP_OS_MOVE_H

#include <stdbool.h>
#include <stdint.h>
#include "address_ranges.h"
#include "mapping_stats.h"

/*
 * The move of ev (a failed call moves nothing but counts), its ranges applied to ar.
 * page_size: lengths are rounded up to it, as the kernel does. uncharged: a call made
 * before heaptap could name the process's code (ld.so, before the allocator is found):
 * what it maps counts as mapped before tracing. 0 or -ENOMEM.
 */
int os_move_of(struct address_ranges *ar, const struct ht_os_event *ev, uint64_t page_size,
	       bool uncharged, struct os_move *out);

#endif
