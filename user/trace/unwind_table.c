// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "bsearch_upper.h"
#include "cfi.h"
#include "cfi_program.h"
#include "elf_limits.h"
#include "unwind_table.h"

/* PT_LOADs searched for each row: real files have 2 to 5, hostile ones thousands. */
#define MAX_SEGMENTS 64

struct segment {
	uint64_t vaddr, memsz, offset;
};

struct builder {
	struct segment segs[MAX_SEGMENTS];
	size_t nr_segs;
	struct unwind_table *table;
	size_t cap;
	size_t max_rows; /* the budget's: more is refused (-EFBIG), not grown into */
};

static bool file_offset_of(const struct builder *b, uint64_t vaddr, uint32_t *off)
{
	for (size_t i = 0; i < b->nr_segs; i++) {
		const struct segment *seg = &b->segs[i];

		if (vaddr >= seg->vaddr && vaddr - seg->vaddr < seg->memsz) {
			uint64_t offset = vaddr - seg->vaddr + seg->offset;

			*off = offset;
			return offset <= UINT32_MAX;
		}
	}
	return false;
}

static bool same_rules(const struct ht_unwind_row *a, const struct ht_unwind_row *b)
{
	return a->cfa_rule == b->cfa_rule && a->cfa_offset == b->cfa_offset &&
	       a->rbp_rule == b->rbp_rule && a->rbp_offset == b->rbp_offset &&
	       a->ra_rule == b->ra_rule && a->ra_offset == b->ra_offset;
}

/* Rows stay sorted by pc, as the BPF unwinder's binary search needs, whatever the file. */
static int add_row(void *ctx, uint64_t vaddr, struct ht_unwind_row row)
{
	struct builder *b = ctx;
	struct unwind_table *t = b->table;
	struct ht_unwind_row *last = t->nr ? &t->rows[t->nr - 1] : NULL;

	if (!file_offset_of(b, vaddr, &row.pc))
		return 0; /* not in the file's image: nothing can execute there */
	if (last && row.pc <= last->pc) {
		if (row.pc == last->pc)
			*last = row; /* the later rule for the same pc */
		return 0;	     /* segments out of order: what goes backwards is dropped */
	}
	if (last && same_rules(last, &row))
		return 0;
	if (t->nr == b->max_rows)
		return -EFBIG;
	if (t->nr == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct ht_unwind_row *grown;

		if (cap > b->max_rows)
			cap = b->max_rows;
		grown = realloc(t->rows, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		t->rows = grown;
		b->cap = cap;
	}
	t->rows[t->nr++] = row;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct cfi_fde *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Each FDE's rows in address order, cut where the next FDE starts (overlapping FDEs are
 * malformed: the later start wins), and a row with no rule where no FDE follows at once.
 */
static int build_rows(struct builder *b, const struct cfi *cfi, struct cfi_fde *fdes, size_t nr)
{
	struct cfi_cie cie;
	struct cfi_rules initial;
	uint64_t cie_offset = 0;
	bool cie_read = false, cie_valid = false;
	int err = 0;

	if (nr)
		qsort(fdes, nr, sizeof(*fdes), by_start);
	for (size_t i = 0; i < nr && !err; i++) {
		const struct cfi_fde *f = &fdes[i];
		uint64_t next = i + 1 < nr ? fdes[i + 1].start : UINT64_MAX;
		uint64_t end = f->end < next ? f->end : next;

		if (f->end > next)
			b->table->malformed++; /* overlapping FDEs: no compiler writes them */
		if (f->start >= end)
			continue;
		if (!cie_read || cie_offset != f->cie) {
			cie_offset = f->cie;
			cie_valid = cfi__cie(cfi, cie_offset, &cie) &&
				    cfi_program__initial(cfi, &cie, &initial);
			cie_read = true;
		}
		if (!cie_valid) {
			b->table->malformed++;
			continue;
		}
		err = cfi_program__rows(cfi, &cie, &initial, f, end, add_row, b);
		if (err > 0) {
			b->table->malformed++;
			continue; /* its rows end where its program broke */
		}
		if (!err && f->end < next)
			err = add_row(b, f->end, (struct ht_unwind_row){ .cfa_rule = HT_CFA_NONE });
	}
	return err;
}

static void load_segments(struct builder *b, Elf *elf)
{
	size_t nr_phdrs;

	if (elf_getphdrnum(elf, &nr_phdrs))
		return;
	for (size_t i = 0; i < nr_phdrs && b->nr_segs < MAX_SEGMENTS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph))
			break; /* the table cannot be read: no entry of it can */
		if (ph.p_type == PT_LOAD)
			b->segs[b->nr_segs++] = (struct segment){ ph.p_vaddr, ph.p_memsz,
								  ph.p_offset };
	}
}

int unwind_table__build(const char *path, struct unwind_table *out)
{
	return unwind_table__build_within(path, SIZE_MAX, out);
}

int unwind_table__build_within(const char *path, size_t max_bytes, struct unwind_table *out)
{
	struct builder b = { .table = out, .max_rows = max_bytes / sizeof(struct ht_unwind_row) };
	struct cfi_fde *fdes = NULL;
	struct elf_file file;
	struct cfi cfi;
	size_t nr = 0, malformed = 0;
	int err;

	memset(out, 0, sizeof(*out));
	err = elf_file__open_within(path, max_bytes, &file);
	if (err)
		return err;
	load_segments(&b, file.elf);
	err = cfi__open(&cfi, file.elf);
	/*
	 * The section, its FDEs and its rows each fit max_bytes, the section's size checked
	 * before a byte of it is read: a crafted file's section is as large as it likes.
	 */
	if (!err && cfi.data->d_size > max_bytes)
		err = -EFBIG;
	if (!err)
		err = cfi__fdes(&cfi, max_bytes / sizeof(*fdes), &fdes, &nr, &malformed);
	if (!err && !nr)
		err = -ENOENT; /* an .eh_frame with only its terminator: frame pointers there */
	if (!err)
		err = build_rows(&b, &cfi, fdes, nr);
	free(fdes);
	elf_file__close(&file);
	if (err) {
		malformed += out->malformed;
		unwind_table__clear(out);
	}
	out->malformed += malformed;
	return err;
}

const struct ht_unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t pc)
{
	/* The last row starting at or before pc. */
	size_t lo = BSEARCH_UPPER(t->rows, t->nr, pc, pc);

	return lo ? &t->rows[lo - 1] : NULL;
}

void unwind_table__clear(struct unwind_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->nr = 0;
	t->malformed = 0;
}
