/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Compact unwind rows for one ELF file, from its .eh_frame: for each pc range, where the
 * CFA is (rsp or rbp plus an offset) and where the caller's rbp and return address were
 * saved. The rows are meant for a BPF unwinder; rules it cannot follow end the stack.
 */
#ifndef HEAPTAP_UNWIND_TABLE_H
#define HEAPTAP_UNWIND_TABLE_H

#include <stddef.h>
#include <stdint.h>

enum cfa_rule {
	CFA_NONE,	 /* no unwind information covers this pc */
	CFA_RSP,	 /* CFA = rsp + cfa_offset */
	CFA_RBP,	 /* CFA = rbp + cfa_offset */
	CFA_PLT,	 /* a PLT stub: CFA = rsp + 8, + 8 more when (pc & 15) >= 11 */
	CFA_UNSUPPORTED, /* an expression heaptap cannot follow: the stack ends, incomplete */
};

enum reg_rule {
	REG_SAME,	 /* the caller's value is still in the register */
	REG_AT_CFA,	 /* saved at CFA + offset */
	REG_UNDEFINED,	 /* no caller: the outermost frame (for the return address) */
	REG_UNSUPPORTED, /* anything else */
};

struct unwind_row {
	uint64_t pc;	    /* file offset where the row starts; it ends where the next starts */
	int32_t cfa_offset;
	int16_t rbp_offset; /* with rbp_rule REG_AT_CFA */
	int16_t ra_offset;  /* with ra_rule REG_AT_CFA (-8 on x86-64) */
	uint8_t cfa_rule;   /* enum cfa_rule */
	uint8_t rbp_rule;   /* enum reg_rule */
	uint8_t ra_rule;    /* enum reg_rule */
	uint8_t pad;
};

struct unwind_table {
	struct unwind_row *rows; /* by pc; neighbours with the same rules are merged */
	size_t nr;
};

/* Build the rows of the ELF file at path. 0, -ENOENT (no .eh_frame_hdr), or -errno. */
int unwind_table__build(const char *path, struct unwind_table *out);
/* The row covering the file offset pc, or NULL. */
const struct unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t pc);
void unwind_table__clear(struct unwind_table *t);

#endif
