/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The mappings a process had at loader events heaptap handled ahead of the event stream
 * (to let the process run on at once), kept until the stream reaches each event: the calls
 * queued before it are named with the mappings of their time, those after with these.
 */
#ifndef HEAPTAP_HELD_MAPS_H
#define HEAPTAP_HELD_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include "procmaps.h"

struct held_maps;

/* Keep maps (taken: *maps is left empty) for the stop made at since_ns. 0 or -ENOMEM. */
int held_maps__push(struct held_maps **queue, uint64_t since_ns, struct procmaps *maps);
/*
 * The maps kept for the stop made at since_ns, into out (an empty procmaps), and false when
 * none were kept. Stops made before it are gone from the stream (their events were lost):
 * their maps go too.
 */
bool held_maps__take(struct held_maps **queue, uint64_t since_ns, struct procmaps *out);
void held_maps__clear(struct held_maps **queue);

#endif
