/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --pprof: a heap profile as pprof's gzipped profile.proto, for go tool pprof and the other
 * readers of the format. Its sample types are heap profilers' own: alloc_objects and
 * alloc_space (every allocation made while traced), inuse_objects and inuse_space (still
 * allocated when tracing ended), and heaptap's peak_objects and peak_space (held when the
 * process's total was at its max); each only when the profile has those figures. Bytes
 * are usable bytes, as every report counts them.
 */
#ifndef HEAPTAP_PROFILE_PPROF_H
#define HEAPTAP_PROFILE_PPROF_H

#include <stdio.h>
#include "heap_profile.h"

/*
 * Write p to out. 0, or -ENODATA when p has none of the figures pprof shows, -ENOMEM, or
 * -EIO (write errors also show on out).
 */
int profile_write_pprof(FILE *out, const struct heap_profile *p);

#endif
