/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libgt: a library that reaches every malloc-family entry point from exported entry
 * functions through internal callers, and records in process what it did: the ground
 * truth heaptap's reports are compared with.
 */
#ifndef GTLIB_H
#define GTLIB_H

/* Entry functions: each names its calls under the entry rule. */
void gt_make_blocks(int n);	/* malloc, calloc */
void gt_resize_blocks(void);	/* realloc (incl. realloc(NULL, n)), reallocarray */
void gt_release_blocks(void);	/* free: what gt_make_blocks allocated goes negative here */
void gt_aligned_blocks(void);	/* memalign, aligned_alloc, posix_memalign, valloc, pvalloc */
void gt_release_aligned(void);	/* free */
void gt_edge_cases(void);
void gt_aligned_sweep(void);	/* the aligned entry points at many alignments and sizes */	/* free(NULL), failed calls, realloc(p, 0), an mmapped block */

/* Leave memalign, posix_memalign, aligned_alloc, valloc and pvalloc uncalled. */
void gt_skip_aligned(void);

/* Write the truth as JSON: threads, entry and caller functions, the library. 0 or -1. */
int gt_truth_write(const char *path);

#endif
