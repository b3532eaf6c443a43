/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A process's OS view (mapping_stats.h) and its --allocator accounts (custom_allocs.h) on
 * the wire: built whole by an agent when they changed, checked by the collector.
 */
#ifndef HEAPTAP_OS_WIRE_H
#define HEAPTAP_OS_WIRE_H

#include <stdint.h>
#include "arena.h"
#include "custom_allocs.h"
#include "heaptap.pb-c.h"
#include "mapping_stats.h"

/*
 * Groups of each kind a Mappings message carries at most (the rest are left out, the
 * total whole): its three lists stay within a batch of ordinary names.
 */
#define WIRE_MAX_MAP_GROUPS 1024u

/* ms as a Mappings message in a's memory: NULL when out of memory. */
Heaptap__Mappings *wire_mappings(struct arena *a, const struct mapping_stats *ms);
/* The accounts of c (NULL: none) as an AllocatorApis message: NULL when out of memory. */
Heaptap__AllocatorApis *wire_allocators(struct arena *a, struct custom_allocs *c);
/* A digest of a message (0: out of memory): they go only when they changed. */
uint64_t wire_message_digest(const ProtobufCMessage *m);

/* What is wrong with a received message (NULL: nothing), in a few words. */
const char *wire_check_mappings(const Heaptap__Mappings *m);
const char *wire_check_allocators(const Heaptap__AllocatorApis *m);

void map_balance_from_wire(const Heaptap__MapBalance *w, struct map_balance *b);

#endif
