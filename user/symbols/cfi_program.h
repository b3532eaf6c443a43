/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * CFI programs (DW_CFA_* instructions) run into the rules the BPF unwinder follows: where
 * the CFA is, where rbp and the return address were saved. Each program runs once, from
 * its start to its end, so any input costs time linear in its size and fixed memory
 * (libdw's interpreter replays an FDE from its start for every row, and sizes a frame by
 * the highest register number it meets).
 */
#ifndef HEAPTAP_CFI_PROGRAM_H
#define HEAPTAP_CFI_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>
#include "cfi.h"
#include "heaptap_types.h"

struct cfi_reg_rule {
	uint8_t rule; /* enum ht_reg_rule */
	int64_t offset;
};

struct cfi_rules {
	bool cfa_is_expression;
	uint64_t cfa_reg;
	int64_t cfa_offset;
	struct cfi_cursor cfa_expression;
	struct cfi_reg_rule rbp, ra;
};

/*
 * The rules after a CIE's initial instructions, the x86-64 ABI's first (CFA = rsp + 8,
 * the return address just below it, rbp unchanged). False when they are malformed.
 */
bool cfi_program__initial(const struct cfi *cfi, const struct cfi_cie *cie,
			  struct cfi_rules *out);

/* Called with each row, in address order: the rule from vaddr until the next row. */
typedef int (*cfi_row_fn)(void *ctx, uint64_t vaddr, struct ht_unwind_row row);

/*
 * Run an FDE's program from its CIE's initial rules, giving rows for [fde->start, end).
 * A malformed instruction ends them with an HT_CFA_NONE row and makes it return 1.
 * Otherwise 0, or what fn returned (negative).
 */
int cfi_program__rows(const struct cfi *cfi, const struct cfi_cie *cie,
		      const struct cfi_rules *initial, const struct cfi_fde *fde, uint64_t end,
		      cfi_row_fn fn, void *ctx);

#endif
