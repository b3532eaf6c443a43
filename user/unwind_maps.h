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
#include "heaptap_types.h"
#include "procmaps.h"

/* What one file's table cost. */
struct unwind_file {
	char *path;	  /* as first mapped */
	uint32_t nr_rows; /* 0 with err set: no table */
	double build_ms;
	int err;	  /* 0, -ENOENT (no .eh_frame_hdr), -ENOSPC (row map full), -errno */
};

/* Bytes of BPF map memory its rows take. */
static inline size_t unwind_file_bytes(const struct unwind_file *f)
{
	return f->nr_rows * sizeof(struct ht_unwind_row);
}

struct unwind_maps;

/* rows_fd: the row array map (capacity rows); processes_fd: pid -> mappings. */
struct unwind_maps *unwind_maps__new(int rows_fd, uint32_t capacity, int processes_fd);
void unwind_maps__free(struct unwind_maps *u);

/*
 * Point pid's executable mappings at their files' tables, building those not seen
 * before. Files are opened through /proc/pid/root. 0 or -errno.
 */
int unwind_maps__update(struct unwind_maps *u, pid_t pid, const struct procmaps *maps);
/* pid exited or runs a new program: drop its mappings (files' tables stay shared). */
void unwind_maps__forget(struct unwind_maps *u, pid_t pid);

/* Every file seen, in the order they were built. */
size_t unwind_maps__files(const struct unwind_maps *u, const struct unwind_file **files);

#endif
