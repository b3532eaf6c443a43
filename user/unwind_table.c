// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unwind_table.h"

#define DWARF_RBP 6
#define DWARF_RSP 7
#define DWARF_RA 16

struct fde_starts {
	uint64_t *starts;
	size_t nr, cap;
};

struct builder {
	Elf *elf;
	Dwarf *dwarf; /* for .debug_frame */
	Dwarf_CFI *cfi;
	bool own_cfi; /* .eh_frame's, ended by us; .debug_frame's belongs to dwarf */
	size_t nr_phdrs;
	struct unwind_table *table;
	size_t cap;
};

static bool file_offset_of(struct builder *b, uint64_t vaddr, uint32_t *off)
{
	for (size_t i = 0; i < b->nr_phdrs; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(b->elf, i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr < ph.p_vaddr + ph.p_memsz) {
			uint64_t offset = vaddr - ph.p_vaddr + ph.p_offset;

			*off = offset;
			return offset <= UINT32_MAX;
		}
	}
	return false;
}

/* "Saved at CFA + n" is call_frame_cfa, plus_uconst n (n may be negative, wrapped). */
static void register_rule(Dwarf_Frame *frame, int regno, uint8_t *rule, int16_t *offset)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	*offset = 0;
	if (dwarf_frame_register(frame, regno, mem, &ops, &n)) {
		*rule = HT_REG_UNSUPPORTED;
	} else if (n == 0) {
		*rule = ops == NULL ? HT_REG_SAME : HT_REG_UNDEFINED;
	} else if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*rule = HT_REG_AT_CFA;
	} else if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
		   ops[1].atom == DW_OP_plus_uconst) {
		*rule = HT_REG_AT_CFA;
		*offset = (int16_t)(int64_t)ops[1].number;
	} else {
		*rule = HT_REG_UNSUPPORTED;
	}
}

/* The expression every x86-64 PLT stub's FDE carries (binutils' lazy-binding PLT). */
static bool is_plt_expression(const Dwarf_Op *ops, size_t n)
{
	static const uint8_t plt[] = { DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and,
				       DW_OP_lit11, DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus };

	if (n != sizeof(plt) || ops[0].number != 8)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (ops[i].atom != plt[i])
			return false;
	}
	return true;
}

/*
 * A signal frame (the 'S' augmentation) whose CFA is the rsp saved in the ucontext_t the
 * kernel put at rsp: glibc's __restore_rt (DW_OP_breg7 160, DW_OP_deref).
 */
static bool is_sigreturn_expression(const Dwarf_Op *ops, size_t n)
{
	return n == 2 && ops[0].atom == DW_OP_breg7 && ops[0].number == 160 &&
	       ops[1].atom == DW_OP_deref;
}

static struct ht_unwind_row rule_of(Dwarf_Frame *frame, bool signal_frame)
{
	struct ht_unwind_row row = { .cfa_rule = HT_CFA_UNSUPPORTED };
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_frame_cfa(frame, &ops, &n) == 0 && signal_frame) {
		if (is_sigreturn_expression(ops, n))
			row.cfa_rule = HT_CFA_SIGNAL;
		return row; /* its registers are all in the ucontext_t */
	}
	if (dwarf_frame_cfa(frame, &ops, &n) == 0) {
		if (n == 1 && ops[0].atom == DW_OP_bregx &&
		    (ops[0].number == DWARF_RSP || ops[0].number == DWARF_RBP)) {
			row.cfa_rule = ops[0].number == DWARF_RSP ? HT_CFA_RSP : HT_CFA_RBP;
			row.cfa_offset = (int32_t)ops[0].number2;
		} else if (is_plt_expression(ops, n)) {
			row.cfa_rule = HT_CFA_PLT;
		}
	}
	register_rule(frame, DWARF_RBP, &row.rbp_rule, &row.rbp_offset);
	register_rule(frame, DWARF_RA, &row.ra_rule, &row.ra_offset);
	return row;
}

static bool same_rules(const struct ht_unwind_row *a, const struct ht_unwind_row *b)
{
	return a->cfa_rule == b->cfa_rule && a->cfa_offset == b->cfa_offset &&
	       a->rbp_rule == b->rbp_rule && a->rbp_offset == b->rbp_offset &&
	       a->ra_rule == b->ra_rule && a->ra_offset == b->ra_offset;
}

static int add_row(struct builder *b, uint64_t vaddr, struct ht_unwind_row row)
{
	struct unwind_table *t = b->table;

	if (!file_offset_of(b, vaddr, &row.pc))
		return 0; /* not in the file's image: nothing can execute there */
	if (t->nr && same_rules(&t->rows[t->nr - 1], &row))
		return 0;
	if (t->nr == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct ht_unwind_row *grown = realloc(t->rows, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		t->rows = grown;
		b->cap = cap;
	}
	t->rows[t->nr++] = row;
	return 0;
}

/* The section called name, or NULL. */
static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *scn_name;

		if (gelf_getshdr(scn, sh) && (scn_name = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(scn_name, name))
			return scn;
	}
	return NULL;
}

static int push_start(struct fde_starts *f, uint64_t start)
{
	if (f->nr == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 256;
		uint64_t *grown = realloc(f->starts, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		f->starts = grown;
		f->cap = cap;
	}
	f->starts[f->nr++] = start;
	return 0;
}

/* FDE start addresses from .eh_frame_hdr's binary-search table (datarel sdata4 entries). */
static int eh_frame_hdr_starts(Elf *elf, struct fde_starts *f)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf_Data *data;
	const uint8_t *hdr;
	uint32_t count;
	int err = 0;

	scn = section_named(elf, ".eh_frame_hdr", &sh);
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || data->d_size < 12)
		return -ENOENT;
	hdr = data->d_buf;
	/*
	 * Version 1, a 4-byte pointer to .eh_frame, a 4-byte count, then the table of
	 * (initial location, FDE address) pairs, both datarel|sdata4: what binutils writes.
	 */
	if (hdr[0] != 1 || (hdr[1] & 0x0f) != DW_EH_PE_sdata4 || hdr[2] != DW_EH_PE_udata4 ||
	    hdr[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return -ENOTSUP;
	memcpy(&count, hdr + 8, sizeof(count));
	if (12 + (size_t)count * 8 > data->d_size)
		return -EINVAL;
	for (uint32_t i = 0; i < count && !err; i++) {
		int32_t rel;

		memcpy(&rel, hdr + 12 + (size_t)i * 8, sizeof(rel));
		err = push_start(f, sh.sh_addr + rel);
	}
	return err;
}

/*
 * FDE start addresses from .debug_frame, which has no search table: walk its entries. An
 * FDE's initial location there is a plain 8-byte address.
 */
static int debug_frame_starts(Elf *elf, struct fde_starts *f)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	Dwarf_Off offset = 0, next;
	Dwarf_CFI_Entry entry;
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf_Data *data;
	int err = 0;

	scn = section_named(elf, ".debug_frame", &sh);
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!ident || !data)
		return -ENOENT;
	while (!err && dwarf_next_cfi(ident, data, false, offset, &next, &entry) == 0) {
		uint64_t start;

		if (!dwarf_cfi_cie_p(&entry) && entry.fde.end - entry.fde.start >= 8) {
			memcpy(&start, entry.fde.start, sizeof(start));
			err = push_start(f, start);
		}
		offset = next;
	}
	return err;
}

/* Walk the rows of every FDE, in address order, marking gaps between FDEs as HT_CFA_NONE. */
static int build_rows(struct builder *b, const uint64_t *starts, size_t nr)
{
	uint64_t addr = 0;
	int err = 0;

	for (size_t i = 0; i < nr && !err; i++) {
		uint64_t next = i + 1 < nr ? starts[i + 1] : UINT64_MAX;

		if (starts[i] > addr)
			addr = starts[i];
		while (!err && addr < next) {
			Dwarf_Frame *frame;
			Dwarf_Addr start, end;
			bool signal_frame;

			if (dwarf_cfi_addrframe(b->cfi, addr, &frame)) {
				err = add_row(b, addr, (struct ht_unwind_row){ .cfa_rule = HT_CFA_NONE });
				break;
			}
			dwarf_frame_info(frame, &start, &end, &signal_frame);
			err = add_row(b, addr, rule_of(frame, signal_frame));
			free(frame);
			if (end <= addr)
				break; /* malformed: never loop in place */
			addr = end;
		}
	}
	return err;
}

static int by_address(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The CFI and its FDEs' starts: .eh_frame, which every x86-64 object has for exceptions,
 * found through .eh_frame_hdr; else .debug_frame, which some objects carry instead.
 */
static int open_cfi(struct builder *b, struct fde_starts *f)
{
	int err;

	b->cfi = dwarf_getcfi_elf(b->elf);
	b->own_cfi = true;
	err = b->cfi ? eh_frame_hdr_starts(b->elf, f) : -ENOENT;
	if (err != -ENOENT)
		return err;
	if (b->cfi)
		dwarf_cfi_end(b->cfi);
	f->nr = 0;
	b->own_cfi = false;
	b->dwarf = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
	b->cfi = b->dwarf ? dwarf_getcfi(b->dwarf) : NULL;
	return b->cfi ? debug_frame_starts(b->elf, f) : -ENOENT;
}

int unwind_table__build(const char *path, struct unwind_table *out)
{
	struct builder b = { .table = out };
	struct fde_starts f = {};
	int fd, err;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	b.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!b.elf || elf_getphdrnum(b.elf, &b.nr_phdrs)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	err = open_cfi(&b, &f);
	if (err)
		goto cleanup;
	qsort(f.starts, f.nr, sizeof(*f.starts), by_address);
	err = build_rows(&b, f.starts, f.nr);
cleanup:
	free(f.starts);
	if (b.cfi && b.own_cfi)
		dwarf_cfi_end(b.cfi);
	if (b.dwarf)
		dwarf_end(b.dwarf);
	if (b.elf)
		elf_end(b.elf);
	close(fd);
	if (err)
		unwind_table__clear(out);
	return err;
}

const struct ht_unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->nr;

	/* The last row starting at or before pc. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

void unwind_table__clear(struct unwind_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->nr = 0;
}
