// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "callsite.h"
#include "elf_limits.h"

struct got_slot {
	uint64_t vaddr;
	size_t name; /* offset into callsite.names */
};

struct segment {
	uint64_t vaddr, offset, filesz;
};

struct callsite {
	int fd; /* instruction bytes are read on demand: callee() runs once per new stack */
	struct segment *segs;
	size_t nr_segs;
	struct got_slot *slots; /* by vaddr */
	size_t nr_slots, slots_cap;
	char *names; /* the string tables the slots' symbols name, each NUL-terminated */
	size_t names_size;
	size_t names_from; /* section index of the last table copied */
	size_t bytes, max_bytes; /* what it keeps, and what the caller's budget allows */
};

/* Would bytes more stay within the budget? */
static bool fits(const struct callsite *cs, uint64_t bytes)
{
	return bytes <= cs->max_bytes - cs->bytes;
}

/*
 * Would a relocation section of count entries, its symbols and their names fit? Asked of
 * the section headers before any of their bytes is read: libelf copies a misaligned
 * section whole (the symbols only for a while, but a while is enough to run out).
 */
static bool fits_section(const struct callsite *cs, uint64_t count, const GElf_Shdr *symsh,
			 const GElf_Shdr *strsh)
{
	bool copied = cs->names && cs->names_from == symsh->sh_link;
	uint64_t need;

	return count < UINT64_MAX / 64 && strsh->sh_size < UINT64_MAX &&
	       !__builtin_mul_overflow(cs->nr_slots + count + 1, sizeof(struct got_slot), &need) &&
	       !__builtin_add_overflow(need, copied ? 0 : strsh->sh_size + 1, &need) &&
	       !__builtin_add_overflow(need, symsh->sh_size, &need) && fits(cs, need);
}

static int by_vaddr(const void *a, const void *b)
{
	const struct got_slot *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/*
 * Copy a string table, unless it is the one copied last (every relocation section of a
 * real file names .dynstr). Its start in cs->names, or -ENOMEM, -EFBIG.
 */
static ssize_t copy_names(struct callsite *cs, size_t index, const Elf_Data *strs)
{
	char *grown;

	if (cs->names && cs->names_from == index)
		return cs->names_size - strs->d_size - 1;
	if (!fits(cs, strs->d_size + 1))
		return -EFBIG;
	grown = realloc(cs->names, cs->names_size + strs->d_size + 1);
	if (!grown)
		return -ENOMEM;
	cs->bytes += strs->d_size + 1;
	cs->names = grown;
	memcpy(cs->names + cs->names_size, strs->d_buf, strs->d_size);
	cs->names_size += strs->d_size + 1;
	cs->names[cs->names_size - 1] = '\0';
	cs->names_from = index;
	return cs->names_size - strs->d_size - 1;
}

/* The GOT slots that relocations of one section fill with a symbol's address. */
static int load_relocations(struct callsite *cs, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data, *syms, *strs;
	GElf_Shdr symsh, strsh;
	Elf_Scn *symscn = elf_getscn(elf, sh->sh_link), *strscn;
	size_t count, entsize = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
	struct got_slot *grown;
	ssize_t names;

	if (!symscn || !gelf_getshdr(symscn, &symsh) || symsh.sh_type != SHT_DYNSYM || !entsize)
		return 0;
	strscn = elf_getscn(elf, symsh.sh_link);
	if (!strscn || !gelf_getshdr(strscn, &strsh))
		return 0;
	if (!fits_section(cs, sh->sh_size / entsize, &symsh, &strsh))
		return -EFBIG;
	data = elf_getdata(scn, NULL);
	syms = elf_getdata(symscn, NULL);
	strs = elf_getdata(strscn, NULL);
	/* NOBITS tables have a size and no bytes: nothing to name. */
	if (!data || !syms || !strs || !strs->d_buf || !data->d_buf)
		return 0;
	/*
	 * Each section's symbols are named by its own string table: a file may link its
	 * relocation sections to different ones, and a name must not index the wrong table.
	 */
	names = copy_names(cs, symsh.sh_link, strs);
	if (names < 0)
		return names;
	count = data->d_size / entsize; /* the entries there are, whatever sh_size claims */
	if (cs->nr_slots + count + 1 > cs->slots_cap) {
		size_t cap = cs->nr_slots + count + 1, more = (cap - cs->slots_cap) * sizeof(*grown);

		if (!fits(cs, more))
			return -EFBIG;
		grown = realloc(cs->slots, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		cs->slots = grown;
		cs->slots_cap = cap;
		cs->bytes += more;
	}
	for (size_t i = 0; i < count; i++) {
		GElf_Rela rela;
		GElf_Sym sym;
		uint64_t type;

		if (!gelf_getrela(data, i, &rela))
			continue;
		type = GELF_R_TYPE(rela.r_info);
		if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
			continue;
		if (!gelf_getsym(syms, GELF_R_SYM(rela.r_info), &sym) || sym.st_name >= strs->d_size)
			continue;
		cs->slots[cs->nr_slots++] = (struct got_slot){
			.vaddr = rela.r_offset,
			.name = names + sym.st_name,
		};
	}
	return 0;
}

struct callsite *callsite__load(const char *path)
{
	return callsite__load_within(path, SIZE_MAX);
}

struct callsite *callsite__load_within(const char *path, size_t max_bytes)
{
	struct callsite *cs = calloc(1, sizeof(*cs));
	struct elf_file file;
	Elf_Scn *scn = NULL;
	size_t nr_phdrs;
	Elf *elf;
	int err;

	if (!cs)
		return NULL;
	cs->max_bytes = max_bytes;
	cs->bytes = sizeof(*cs);
	err = elf_file__open_within(path, max_bytes, &file);
	/* The file outlives libelf's view of it (ended below): callee() reads through it. */
	cs->fd = file.fd;
	elf = file.elf;
	if (!err && elf_getphdrnum(elf, &nr_phdrs))
		err = -ENOEXEC;
	if (err)
		goto cleanup;
	if (cs->bytes > max_bytes || nr_phdrs > (max_bytes - cs->bytes) / sizeof(*cs->segs)) {
		err = -EFBIG;
		goto cleanup;
	}
	cs->segs = calloc(nr_phdrs ? nr_phdrs : 1, sizeof(*cs->segs));
	if (!cs->segs) {
		err = -ENOMEM;
		goto cleanup;
	}
	cs->bytes += (nr_phdrs ? nr_phdrs : 1) * sizeof(*cs->segs);
	for (size_t i = 0; i < nr_phdrs; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD)
			cs->segs[cs->nr_segs++] = (struct segment){ ph.p_vaddr, ph.p_offset,
								    ph.p_filesz };
	}
	while (!err && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA)
			err = load_relocations(cs, elf, scn, &sh);
	}
	if (cs->nr_slots)
		qsort(cs->slots, cs->nr_slots, sizeof(*cs->slots), by_vaddr);
cleanup:
	if (elf)
		elf_end(elf);
	if (err) {
		callsite__free(cs);
		errno = -err;
		return NULL;
	}
	return cs;
}

size_t callsite__bytes(const struct callsite *cs)
{
	return cs->bytes;
}

void callsite__free(struct callsite *cs)
{
	if (!cs)
		return;
	if (cs->fd >= 0)
		close(cs->fd);
	free(cs->segs);
	free(cs->slots);
	free(cs->names);
	free(cs);
}

static bool offset_to_vaddr(const struct callsite *cs, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < cs->nr_segs; i++) {
		const struct segment *s = &cs->segs[i];

		if (off >= s->offset && off < s->offset + s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return true;
		}
	}
	return false;
}

/* Read size bytes of the file image at vaddr. */
static bool read_at(const struct callsite *cs, uint64_t vaddr, void *buf, size_t size)
{
	for (size_t i = 0; i < cs->nr_segs; i++) {
		const struct segment *s = &cs->segs[i];

		if (vaddr >= s->vaddr && vaddr + size <= s->vaddr + s->filesz)
			return pread(cs->fd, buf, size, vaddr - s->vaddr + s->offset) == (ssize_t)size;
	}
	return false;
}

static bool vaddr_to_offset(const struct callsite *cs, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < cs->nr_segs; i++) {
		const struct segment *s = &cs->segs[i];

		if (vaddr >= s->vaddr && vaddr < s->vaddr + s->filesz) {
			*off = vaddr - s->vaddr + s->offset;
			return true;
		}
	}
	return false;
}

static int32_t le32(const unsigned char *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			 (uint32_t)p[3] << 24);
}

/* A PLT stub jumps through its GOT slot: [endbr64] [bnd] jmp *disp32(%rip). */
static bool plt_stub_slot(const struct callsite *cs, uint64_t stub, uint64_t *slot)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	unsigned char code[16];
	size_t at = 0;

	if (!read_at(cs, stub, code, sizeof(code)))
		return false;
	if (!memcmp(code, endbr64, sizeof(endbr64)))
		at += sizeof(endbr64);
	if (code[at] == 0xf2) /* bnd prefix */
		at++;
	if (code[at] != 0xff || code[at + 1] != 0x25)
		return false;
	*slot = stub + at + 6 + le32(&code[at + 2]);
	return true;
}

const char *callsite__callee(const struct callsite *cs, uint64_t ret_offset)
{
	unsigned char code[6];
	uint64_t ret, slot;
	size_t lo = 0, hi = cs->nr_slots;

	if (!offset_to_vaddr(cs, ret_offset, &ret) || ret < sizeof(code) ||
	    !read_at(cs, ret - sizeof(code), code, sizeof(code)))
		return NULL;
	if (code[1] == 0xe8) { /* call rel32: to a PLT stub */
		if (!plt_stub_slot(cs, ret + le32(&code[2]), &slot))
			return NULL;
	} else if (code[0] == 0xff && code[1] == 0x15) { /* call *disp32(%rip): -fno-plt */
		slot = ret + le32(&code[2]);
	} else {
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cs->slots[mid].vaddr == slot)
			return cs->names + cs->slots[mid].name;
		if (cs->slots[mid].vaddr < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool callsite__direct_target(const struct callsite *cs, uint64_t ret_offset, uint64_t *target)
{
	unsigned char code[5];
	uint64_t ret, stub_slot;

	if (!offset_to_vaddr(cs, ret_offset, &ret) || ret < sizeof(code) ||
	    !read_at(cs, ret - sizeof(code), code, sizeof(code)) || code[0] != 0xe8)
		return false;
	ret += le32(&code[1]);
	if (plt_stub_slot(cs, ret, &stub_slot))
		return false; /* through the PLT: an ordinary, interposable call */
	return vaddr_to_offset(cs, ret, target);
}
