// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cfi.h"

/*
 * A CIE's initial instructions run again for each of its FDEs: more than compilers ever
 * write (a few bytes) would let one CIE cost time per FDE.
 */
#define MAX_CIE_PROGRAM 256

/*
 * A LEB128 number's bits (those past 64 dropped), and the bit count read (*bits): the
 * sign, for a signed one, is bit *bits - 1. Never reads more than 10 bytes.
 */
static bool read_leb(struct cfi_cursor *c, uint64_t *v, unsigned int *bits)
{
	uint64_t r = 0;

	for (unsigned int shift = 0; c->p < c->end && shift < 70; shift += 7) {
		uint8_t b = *c->p++;

		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			*bits = shift + 7;
			return true;
		}
	}
	return false;
}

bool cfi_read_uleb(struct cfi_cursor *c, uint64_t *v)
{
	unsigned int bits;

	return read_leb(c, v, &bits);
}

bool cfi_read_sleb(struct cfi_cursor *c, int64_t *v)
{
	unsigned int bits;
	uint64_t r;

	if (!read_leb(c, &r, &bits))
		return false;
	if (bits < 64 && (r >> (bits - 1) & 1))
		r |= UINT64_MAX << bits;
	*v = (int64_t)r;
	return true;
}

bool cfi_read_fixed(struct cfi_cursor *c, size_t size, bool is_signed, uint64_t *v)
{
	uint64_t r = 0;

	if ((size_t)(c->end - c->p) < size)
		return false;
	for (size_t i = 0; i < size; i++)
		r |= (uint64_t)c->p[i] << (8 * i);
	if (is_signed && size < 8 && (r >> (8 * size - 1)) & 1)
		r |= UINT64_MAX << (8 * size);
	c->p += size;
	*v = r;
	return true;
}

bool cfi_read_pointer(const struct cfi *cfi, struct cfi_cursor *c, uint8_t encoding, uint64_t *v)
{
	uint64_t at = cfi->vaddr + (uint64_t)(c->p - (const uint8_t *)cfi->data->d_buf);
	bool is_signed = encoding & DW_EH_PE_signed, ok;
	int64_t s;

	switch (encoding & 0x0f) {
	case DW_EH_PE_absptr:
		ok = cfi_read_fixed(c, cfi->ptr_size, false, v);
		break;
	case DW_EH_PE_uleb128:
		ok = cfi_read_uleb(c, v);
		break;
	case DW_EH_PE_sleb128:
		ok = cfi_read_sleb(c, &s);
		*v = (uint64_t)s;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		ok = cfi_read_fixed(c, 2, is_signed, v);
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		ok = cfi_read_fixed(c, 4, is_signed, v);
		break;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		ok = cfi_read_fixed(c, 8, false, v);
		break;
	default:
		return false;
	}
	if (!ok)
		return false;
	switch (encoding & 0xf0) {
	case DW_EH_PE_absptr:
		return true;
	case DW_EH_PE_pcrel:
		*v += at;
		return true;
	default:
		return false; /* datarel, textrel, indirect: not what x86-64 toolchains write */
	}
}

/* The augmentation data of a 'z' CIE: which encoding its FDEs use, whether it is a signal frame. */
static void read_augmentation(const struct cfi *cfi, const char *augmentation,
			      struct cfi_cursor data, struct cfi_cie *cie)
{
	for (const char *a = augmentation + 1; *a; a++) {
		uint64_t personality;

		if (*a == 'S') {
			cie->signal_frame = true;
		} else if (*a == 'P' && data.p < data.end) {
			uint8_t encoding = *data.p++;

			/* Its format gives its size; where it points does not matter here. */
			if (!cfi_read_pointer(cfi, &data, encoding & 0x0f, &personality))
				return;
		} else if (*a == 'L' && data.p < data.end) {
			data.p++;
		} else if (*a == 'R' && data.p < data.end) {
			cie->fde_encoding = *data.p++;
		} else if (*a != 'B' && *a != 'G') {
			return; /* 'z' sized the data: what follows can be skipped */
		}
	}
}

bool cfi__cie(const struct cfi *cfi, uint64_t offset, struct cfi_cie *out)
{
	Dwarf_CFI_Entry e;
	Dwarf_Off next;

	*out = (struct cfi_cie){ .fde_encoding = DW_EH_PE_absptr };
	/* An FDE naming an FDE, itself included, as its CIE: no rows, and nothing to follow. */
	if (dwarf_next_cfi(cfi->ident, cfi->data, cfi->eh, offset, &next, &e) ||
	    !dwarf_cfi_cie_p(&e))
		return false;
	out->code_align = e.cie.code_alignment_factor;
	out->data_align = e.cie.data_alignment_factor;
	out->ra_reg = e.cie.return_address_register;
	if (e.cie.augmentation[0] == 'z') {
		struct cfi_cursor data = { e.cie.augmentation_data, e.cie.augmentation_data };

		if (data.p)
			data.end += e.cie.augmentation_data_size;
		out->sized_augmentation = true;
		read_augmentation(cfi, e.cie.augmentation, data, out);
	} else if (e.cie.augmentation[0]) {
		return false; /* no telling where its instructions start */
	}
	if (e.cie.initial_instructions_end - e.cie.initial_instructions > MAX_CIE_PROGRAM)
		return false;
	out->program = (struct cfi_cursor){ e.cie.initial_instructions,
					    e.cie.initial_instructions_end };
	return true;
}

/* An FDE's address range and program, decoded as its CIE says. */
static bool read_fde(const struct cfi *cfi, const struct cfi_cie *cie, const Dwarf_FDE *e,
		     struct cfi_fde *out)
{
	struct cfi_cursor c = { e->start, e->end };
	uint64_t range, len;

	/* A range past the end of the address space, or an empty one, covers no code. */
	if (!cfi_read_pointer(cfi, &c, cie->fde_encoding, &out->start) ||
	    !cfi_read_pointer(cfi, &c, cie->fde_encoding & 0x0f, &range) || range == 0 ||
	    __builtin_add_overflow(out->start, range, &out->end))
		return false;
	if (cie->sized_augmentation) {
		if (!cfi_read_uleb(&c, &len) || len > (uint64_t)(c.end - c.p))
			return false;
		c.p += len;
	}
	out->program = c;
	out->cie = e->CIE_pointer;
	return true;
}

static int give_up(struct cfi_fde **fdes, size_t *nr, int err)
{
	free(*fdes);
	*fdes = NULL;
	*nr = 0;
	return err;
}

int cfi__fdes(const struct cfi *cfi, size_t max_nr, struct cfi_fde **fdes, size_t *nr,
	      size_t *malformed)
{
	struct cfi_cie cie;
	uint64_t cie_offset = 0;
	bool cie_read = false, cie_valid = false;
	Dwarf_Off offset = 0, next;
	size_t cap = 0;

	*fdes = NULL;
	*nr = 0;
	for (;; offset = next) {
		Dwarf_CFI_Entry e;
		struct cfi_fde fde;
		int rc;

		next = offset;
		rc = dwarf_next_cfi(cfi->ident, cfi->data, cfi->eh, offset, &next, &e);
		if (rc > 0)
			break;
		if (rc < 0 || next <= offset) {
			(*malformed)++;
			if (next <= offset)
				break; /* an entry that cannot be stepped over */
			continue;
		}
		if (dwarf_cfi_cie_p(&e))
			continue;
		/* FDEs mostly share one CIE: read it again only when it changes. */
		if (!cie_read || cie_offset != e.fde.CIE_pointer) {
			cie_offset = e.fde.CIE_pointer;
			cie_valid = cfi__cie(cfi, cie_offset, &cie);
			cie_read = true;
		}
		if (!cie_valid || !read_fde(cfi, &cie, &e.fde, &fde)) {
			(*malformed)++;
			continue;
		}
		if (*nr == max_nr)
			return give_up(fdes, nr, -EFBIG);
		if (*nr == cap) {
			struct cfi_fde *grown;

			cap = cap ? cap * 2 : 256;
			if (cap > max_nr)
				cap = max_nr;
			grown = realloc(*fdes, cap * sizeof(*grown));
			if (!grown)
				return give_up(fdes, nr, -ENOMEM);
			*fdes = grown;
		}
		(*fdes)[(*nr)++] = fde;
	}
	return 0;
}

/* The section called name, with bytes in the file, or NULL. */
static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *scn_name;

		if (gelf_getshdr(scn, sh) && sh->sh_type != SHT_NOBITS &&
		    (scn_name = elf_strptr(elf, shstrndx, sh->sh_name)) && !strcmp(scn_name, name))
			return scn;
	}
	return NULL;
}

/* .eh_frame, which every x86-64 object has for exceptions, else .debug_frame. */
int cfi__open(struct cfi *cfi, Elf *elf)
{
	GElf_Shdr sh;

	memset(cfi, 0, sizeof(*cfi));
	cfi->ident = (const unsigned char *)elf_getident(elf, NULL);
	if (!cfi->ident || cfi->ident[EI_DATA] != ELFDATA2LSB)
		return -ENOEXEC;
	cfi->ptr_size = cfi->ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	for (int i = 0; i < 2; i++) {
		Elf_Scn *scn = section_named(elf, i == 0 ? ".eh_frame" : ".debug_frame", &sh);

		cfi->eh = i == 0;
		cfi->data = scn ? elf_rawdata(scn, NULL) : NULL;
		if (cfi->data && cfi->data->d_buf && cfi->data->d_size) {
			cfi->vaddr = sh.sh_addr;
			return 0;
		}
	}
	return -ENOENT;
}
