/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The unwind tables the BPF unwinder reads: each file's rows, built once and shared by
 * every process that maps the file, and each process's executable mappings pointing at
 * them. Files without .eh_frame get no rows; their frames are walked by frame pointers.
 */
#ifndef HEAPTAP_UNWIND_MAPS_H
#define HEAPTAP_UNWIND_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "budget.h"
#include "heaptap_types.h"
#include "node_stacks.h"
#include "procmaps.h"

/* What one file's table cost. */
struct unwind_file {
	char *path;	  /* as first mapped */
	uint32_t nr_rows; /* 0 with err set: no table */
	uint32_t index_slots; /* row slots of its page index (0: none, the rows are searched) */
	uint32_t page_shift, first_page, nr_pages; /* its page index, as the BPF side reads it */
	double build_ms;
	/*
	 * 0, -ENOENT (no CFI), -EFBIG (over the per-file budget), -ENOSPC (the total budget,
	 * the row map, is spent), -errno
	 */
	int err;
	enum budget_verdict over_budget; /* with -EFBIG and -ENOSPC */
	uint64_t cut_stacks; /* calls whose incomplete stack ended in this file */
};

/* Bytes of BPF map memory its rows and its page index take. */
static inline size_t unwind_file_bytes(const struct unwind_file *f)
{
	return ((size_t)f->nr_rows + f->index_slots) * sizeof(struct ht_unwind_row);
}

struct unwind_maps;

/*
 * rows_fd: the row array map (capacity rows); processes_fd: pid -> mappings. node numbers
 * the files, for the stacks the node shares (NULL: none are).
 */
struct unwind_maps *unwind_maps__new(int rows_fd, uint32_t capacity, int processes_fd,
				     struct node_stacks *node);
void unwind_maps__free(struct unwind_maps *u);
/*
 * Bytes of rows one file may take (default: the whole map); the map's capacity is the
 * total. A file over either gets no table, with one warning.
 */
void unwind_maps__limit_files(struct unwind_maps *u, uint64_t per_file);
const struct budget *unwind_maps__budget(const struct unwind_maps *u);

/*
 * Point pid's executable mappings at their files' tables, building those not seen
 * before. Files are opened through /proc/pid/root. 0 or -errno.
 */
int unwind_maps__update(struct unwind_maps *u, pid_t pid, const struct procmaps *maps);
/* pid exited or runs a new program: drop its mappings (files' tables stay shared). */
void unwind_maps__forget(struct unwind_maps *u, pid_t pid);

/* A call's stack was cut in the file dev:inode (its outermost frame lies there). */
void unwind_maps__note_cut(struct unwind_maps *u, uint64_t dev, uint64_t inode);

/* Every file seen, in the order they were built. */
size_t unwind_maps__files(const struct unwind_maps *u, const struct unwind_file **files);

#endif
