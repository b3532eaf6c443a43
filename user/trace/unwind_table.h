/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Compact unwind rows for one ELF file, from its .eh_frame (else .debug_frame): for each pc
 * range, where the CFA is (rsp or rbp plus an offset) and where the caller's rbp and return
 * address were saved. The rows are meant for a BPF unwinder; rules it cannot follow end the
 * stack.
 */
#ifndef HEAPTAP_UNWIND_TABLE_H
#define HEAPTAP_UNWIND_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "heaptap_types.h"

struct unwind_table {
	struct ht_unwind_row *rows; /* by pc; neighbours with the same rules are merged */
	size_t nr;
	/*
	 * Entries skipped or cut short as malformed (a truncated section, an FDE whose CIE
	 * pointer names no CIE, overlapping FDEs, an instruction that cannot be read): set
	 * even when the build fails. 0 for a sound file.
	 */
	size_t malformed;
};

/*
 * Build the rows of the ELF file at path. 0, -ENOENT (no CFI), or -errno. Rows hold 32-bit
 * file offsets: code past 4 GiB into a file gets none (frame pointers there).
 */
int unwind_table__build(const char *path, struct unwind_table *out);
/*
 * The same within a budget: -EFBIG, and no rows, when the file's CFI section, the list of
 * its FDEs or its rows would take more than max_bytes (so building takes at most about
 * three times that). The section's size is checked before it is read.
 */
int unwind_table__build_within(const char *path, size_t max_bytes, struct unwind_table *out);
/* The row covering the file offset pc, or NULL. */
const struct ht_unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t pc);
void unwind_table__clear(struct unwind_table *t);

#endif
