/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A file's call frame information (.eh_frame, else .debug_frame) read entry by entry:
 * CIEs and FDEs, their pointers and the bounds of their programs. Everything here comes
 * from the traced program's files, so every read is bounds-checked and nothing loops.
 */
#ifndef HEAPTAP_CFI_H
#define HEAPTAP_CFI_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cfi_cursor {
	const uint8_t *p, *end;
};

bool cfi_read_uleb(struct cfi_cursor *c, uint64_t *v);
bool cfi_read_sleb(struct cfi_cursor *c, int64_t *v);
/* size little-endian bytes, sign-extended when is_signed. */
bool cfi_read_fixed(struct cfi_cursor *c, size_t size, bool is_signed, uint64_t *v);

struct cfi {
	const unsigned char *ident;
	Elf_Data *data; /* the section's bytes */
	bool eh;	/* .eh_frame (else .debug_frame) */
	uint64_t vaddr; /* of the section, for pc-relative pointers */
	size_t ptr_size;
};

/* A pointer in a DW_EH_PE_* encoding: absolute or pc-relative, as x86-64 toolchains write. */
bool cfi_read_pointer(const struct cfi *cfi, struct cfi_cursor *c, uint8_t encoding,
		      uint64_t *v);

struct cfi_cie {
	uint64_t code_align, ra_reg;
	int64_t data_align;
	uint8_t fde_encoding;
	bool sized_augmentation; /* 'z': FDEs say how many augmentation bytes they have */
	bool signal_frame;	 /* 'S' */
	struct cfi_cursor program; /* its initial instructions */
};

struct cfi_fde {
	uint64_t start, end; /* [start, end), never empty */
	struct cfi_cursor program;
	uint64_t cie; /* section offset */
};

/* The CFI of elf, little-endian only. 0, -ENOENT (none), -ENOEXEC. */
int cfi__open(struct cfi *cfi, Elf *elf);
/* The CIE at a section offset; false when it is not one heaptap can read. */
bool cfi__cie(const struct cfi *cfi, uint64_t offset, struct cfi_cie *out);
/*
 * Every well-formed FDE, in the order the section has them; entries that are malformed,
 * and FDEs whose CIE pointer names no CIE, are skipped and counted in *malformed. 0,
 * -ENOMEM, or -EFBIG (and none) when there are more than max_nr; *fdes is to be freed.
 */
int cfi__fdes(const struct cfi *cfi, size_t max_nr, struct cfi_fde **fdes, size_t *nr,
	      size_t *malformed);

#endif
