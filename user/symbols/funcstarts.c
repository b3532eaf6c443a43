// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include "bsearch_upper.h"
#include "cfi.h"
#include "elf_limits.h"
#include "funcstarts.h"

struct range {
	uint64_t start, end; /* file offsets, [start, end) */
};

struct funcstarts {
	struct range *ranges; /* by start */
	size_t nr;
};

static int by_start(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* vaddr -> file offset through the PT_LOAD holding it, with its room: false if none. */
static bool to_offset(Elf *elf, size_t nr_phdrs, uint64_t vaddr, uint64_t *off, uint64_t *room)
{
	for (size_t i = 0; i < nr_phdrs; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr - ph.p_vaddr < ph.p_memsz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			*room = ph.p_memsz - (vaddr - ph.p_vaddr);
			return true;
		}
	}
	return false;
}

static int collect(struct funcstarts *fs, Elf *elf, size_t max_bytes)
{
	struct cfi_fde *fdes = NULL;
	struct cfi cfi;
	size_t nr = 0, malformed = 0, nr_phdrs;
	int err = cfi__open(&cfi, elf);

	if (!err && elf_getphdrnum(elf, &nr_phdrs))
		err = -ENOEXEC;
	/* The section, the FDE list and the ranges each within max_bytes. */
	if (!err && cfi.data->d_size > max_bytes)
		err = -EFBIG;
	if (!err)
		err = cfi__fdes(&cfi, max_bytes / sizeof(*fdes), &fdes, &nr, &malformed);
	if (!err && nr > max_bytes / sizeof(*fs->ranges))
		err = -EFBIG;
	if (!err && !(fs->ranges = calloc(nr ? nr : 1, sizeof(*fs->ranges))))
		err = -ENOMEM;
	for (size_t i = 0; !err && i < nr; i++) {
		uint64_t off, room;

		if (!to_offset(elf, nr_phdrs, fdes[i].start, &off, &room))
			continue;
		fs->ranges[fs->nr++] = (struct range){
			off, off + (fdes[i].end - fdes[i].start < room ? fdes[i].end - fdes[i].start :
									 room) };
	}
	free(fdes);
	if (!err)
		qsort(fs->ranges, fs->nr, sizeof(*fs->ranges), by_start);
	return err;
}

struct funcstarts *funcstarts__load_within(const char *path, size_t max_bytes)
{
	struct funcstarts *fs = calloc(1, sizeof(*fs));
	struct elf_file file;
	int err;

	if (!fs)
		return NULL;
	err = elf_file__open_within(path, max_bytes, &file);
	if (!err)
		err = collect(fs, file.elf, max_bytes);
	elf_file__close(&file);
	if (err) {
		funcstarts__free(fs);
		errno = -err;
		return NULL;
	}
	return fs;
}

void funcstarts__free(struct funcstarts *fs)
{
	if (!fs)
		return;
	free(fs->ranges);
	free(fs);
}

size_t funcstarts__bytes(const struct funcstarts *fs)
{
	return sizeof(*fs) + (fs->nr ? fs->nr : 1) * sizeof(*fs->ranges);
}

bool funcstarts__start_of(const struct funcstarts *fs, uint64_t off, uint64_t *start)
{
	size_t lo = BSEARCH_UPPER(fs->ranges, fs->nr, start, off);

	/* FDEs do not nest; a crafted overlap names the latest start that holds off. */
	if (!lo || off >= fs->ranges[lo - 1].end)
		return false;
	*start = fs->ranges[lo - 1].start;
	return true;
}
