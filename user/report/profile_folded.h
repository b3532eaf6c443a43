/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --folded: a heap profile as folded stacks, one line per stack, "outermost;...;innermost
 * weight", the input of flamegraph.pl, inferno-flamegraph and speedscope. Frames are named
 * by their function only, as every report names them (source names; a function inlined
 * into another is a frame of its own); the allocator's entry point is the innermost frame.
 * Stacks that differ only by their process or thread are one line, their weights summed.
 */
#ifndef HEAPTAP_PROFILE_FOLDED_H
#define HEAPTAP_PROFILE_FOLDED_H

#include <stdio.h>
#include "heap_profile.h"

/* What a line's number counts (--folded-weight). */
enum folded_weight {
	FOLDED_OUTSTANDING, /* bytes still allocated when tracing ended (the default) */
	FOLDED_PEAK,	    /* bytes held when the process's total was at its max */
	FOLDED_ALLOCATED,   /* bytes allocated while traced */
	FOLDED_CALLS,	    /* allocation calls made while traced */
};

/* The weight named name (outstanding, peak, allocated, calls): 0, or -EINVAL. */
int folded_weight_parse(const char *name, enum folded_weight *out);
const char *folded_weight_name(enum folded_weight w);
/* The profile's figure a weight counts. */
enum profile_value folded_weight_value(enum folded_weight w);

/*
 * Write every stack of p whose weight is not 0. 0, or -ENODATA when p lacks the figure the
 * weight counts, -ENOMEM, -EIO (write errors also show on out).
 */
int profile_write_folded(FILE *out, const struct heap_profile *p, enum folded_weight w);

#endif
