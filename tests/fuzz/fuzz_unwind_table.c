// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unwind-table building: .eh_frame or .debug_frame read entry by entry, each CIE's
 * augmentation and initial instructions, each FDE's range and program run into the BPF
 * unwinder's rows.
 */
#include <string.h>
#include "fuzz_file.h"
#include "unwind_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_table t;
	uint64_t sum = 0;

	if (unwind_table__build(fuzz_file(data, size), &t))
		return 0;
	/* Every row must be readable, and so must whatever a lookup returns. */
	for (size_t i = 0; i < t.nr; i++)
		sum += t.rows[i].pc + t.rows[i].cfa_rule;
	for (size_t i = 0; i + 4 <= size; i += size / 32 + 1) {
		const struct ht_unwind_row *row;
		uint32_t pc;

		memcpy(&pc, data + i, sizeof(pc));
		row = unwind_table__find(&t, pc);
		if (row)
			sum += row->cfa_offset;
	}
	unwind_table__clear(&t);
	__asm__ volatile("" : : "r"(sum)); /* keeps the reads above */
	return 0;
}
