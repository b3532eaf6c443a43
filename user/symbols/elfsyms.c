// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bsearch_upper.h"
#include "elf_limits.h"
#include "elfsyms_internal.h"

/* Build ids are 16 or 20 bytes; longer ones name no debug file. */
#define MAX_BUILD_ID 64
/* Notes are read whole: real ones take a few hundred bytes. */
#define MAX_NOTES (64 << 10)

/* Would bytes more stay within the budget? */
static bool fits_more(const struct elfsyms *s, size_t bytes)
{
	return s->other_bytes <= s->max_bytes && bytes <= s->max_bytes - s->other_bytes;
}

/* vaddr -> file offset through the PT_LOAD segment holding it; false if none does. */
static bool file_offset_of(const struct elfsyms *s, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < s->nr_segs; i++) {
		const struct segment *seg = &s->segs[i];

		if (vaddr >= seg->vaddr && vaddr < seg->vaddr + seg->memsz) {
			*off = vaddr - seg->vaddr + seg->offset;
			return true;
		}
	}
	return false;
}

static int load_segments(struct elfsyms *s, Elf *elf, size_t nr_phdrs)
{
	size_t bytes = (nr_phdrs ? nr_phdrs : 1) * sizeof(*s->segs);

	if (bytes / sizeof(*s->segs) < nr_phdrs || !fits_more(s, bytes))
		return -EFBIG; /* thousands of program headers: only a crafted file has them */
	s->segs = calloc(nr_phdrs ? nr_phdrs : 1, sizeof(*s->segs));
	if (!s->segs)
		return -ENOMEM;
	s->other_bytes += bytes;
	for (size_t i = 0; i < nr_phdrs; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD)
			s->segs[s->nr_segs++] = (struct segment){ ph.p_vaddr, ph.p_memsz,
								  ph.p_offset };
	}
	return 0;
}

void elfsyms_forget_symbols(struct elfsyms *s)
{
	free(s->syms);
	free(s->names);
	free(s->more_names);
	s->syms = NULL;
	s->names = NULL;
	s->more_names = NULL;
	s->from_debugdata = false;
	s->nr = 0;
	s->table_bytes = 0;
}

/*
 * What reading a symbol table takes, from its section headers alone: checked before any
 * of its bytes is read, which for a misaligned table means before libelf copies it.
 */
static int fits(const struct elfsyms *s, Elf *elf, const GElf_Shdr *sh, size_t entsize)
{
	Elf_Scn *strscn = elf_getscn(elf, sh->sh_link);
	uint64_t count = entsize ? sh->sh_size / entsize : 0, bytes;
	GElf_Shdr strsh;

	if (!strscn || !gelf_getshdr(strscn, &strsh))
		return 0; /* no names: load_symbols finds it malformed */
	bytes = (count ? count : 1) * sizeof(struct symbol);
	if (strsh.sh_type != SHT_NOBITS)
		bytes += strsh.sh_size + 1;
	if (count > SIZE_MAX / sizeof(struct symbol) || strsh.sh_size > SIZE_MAX / 2 ||
	    bytes > s->table_room)
		return -EFBIG;
	return 0;
}

int elfsyms_load_symbols(struct elfsyms *s, Elf *elf, Elf_Scn *symtab)
{
	Elf_Data *data, *strdata;
	GElf_Shdr sh;
	size_t count, entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	int err;

	if (!gelf_getshdr(symtab, &sh))
		return -ENOEXEC;
	err = fits(s, elf, &sh, entsize);
	if (err)
		return err;
	/* No bytes where the header says (a section past the end of the file...). */
	data = elf_getdata(symtab, NULL);
	if (!data)
		return -ENOEXEC;
	strdata = elf_getdata(elf_getscn(elf, sh.sh_link), NULL);
	if (!strdata)
		return -ENOEXEC;
	/*
	 * A NOBITS table (what a debug file keeps of allocated sections) has a size and no
	 * bytes: libelf gives it a NULL buffer. No symbols, then; the entries are counted
	 * from the bytes there are, not from what the header claims.
	 */
	if (!data->d_buf || !strdata->d_buf)
		return 0;
	count = entsize ? data->d_size / entsize : 0;
	/* The headers said what the bytes say: fits() checked what is allocated here. */
	if ((count ? count : 1) * sizeof(*s->syms) + strdata->d_size + 1 > s->table_room)
		return -EFBIG;
	s->names = malloc(strdata->d_size + 1);
	s->syms = calloc(count ? count : 1, sizeof(*s->syms));
	if (!s->names || !s->syms)
		return -ENOMEM;
	s->table_bytes = (count ? count : 1) * sizeof(*s->syms) + strdata->d_size + 1;
	memcpy(s->names, strdata->d_buf, strdata->d_size);
	s->names[strdata->d_size] = '\0';
	/* Its last name runs to the end of the table: cut there, as the copy is. */
	if (strdata->d_size && s->names[strdata->d_size - 1] != '\0')
		s->malformed++;

	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;
		struct symbol *out = &s->syms[s->nr];
		int type;

		if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		if (sym.st_name >= strdata->d_size) {
			s->malformed++; /* a name outside the string table */
			continue;
		}
		type = GELF_ST_TYPE(sym.st_info);
		out->label = elfsyms_is_code_label(elf, &sym, s->names + sym.st_name);
		if (type != STT_FUNC && type != STT_GNU_IFUNC && !out->label)
			continue;
		if (!file_offset_of(s, sym.st_value, &out->offset))
			continue;
		out->name = s->names + sym.st_name;
		/* "malloc@@GLIBC_2.2.5" in static programs' tables: the base name is the name. */
		s->names[sym.st_name + strcspn(out->name, "@")] = '\0';
		out->size = out->label ? 0 : sym.st_size;
		out->preference = elfsyms_preference(out->name, GELF_ST_BIND(sym.st_info),
						     out->label);
		s->nr++;
	}
	elfsyms_sort(s);
	return 0;
}

/*
 * A table that cannot be read (its bytes lie past the end of the file...) is counted, and
 * the next one tried: a file's other symbols are worth having.
 */
static int readable(struct elfsyms *s, int err)
{
	if (err == -EFBIG)
		s->over_budget = true;
	else if (err == -ENOEXEC)
		s->malformed++;
	else
		return err;
	elfsyms_forget_symbols(s);
	return 0;
}

/* Read before the tables, which may take what they leave of the budget. */
static int load_interp_and_build_id(struct elfsyms *s, Elf *elf, size_t nr_phdrs)
{
	for (size_t i = 0; i < nr_phdrs; i++) {
		GElf_Phdr ph;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getphdr(elf, i, &ph))
			continue;
		if (ph.p_type == PT_INTERP && !s->interp) {
			size_t size;
			const char *raw = elf_rawfile(elf, &size);

			/* A path: PATH_MAX at most, whatever the header claims. */
			if (raw && ph.p_offset <= size && ph.p_filesz <= size - ph.p_offset)
				s->interp = strndup(raw + ph.p_offset,
						    ph.p_filesz < 4096 ? ph.p_filesz : 4096);
			if (s->interp && !fits_more(s, strlen(s->interp) + 1))
				return -EFBIG;
			if (s->interp)
				s->other_bytes += strlen(s->interp) + 1;
		}
		if (ph.p_type != PT_NOTE || s->build_id || ph.p_filesz > MAX_NOTES)
			continue;
		data = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const unsigned char *desc = (const unsigned char *)data->d_buf + desc_off;

			/* An empty id names no debug file. */
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || !nh.n_descsz ||
			    nh.n_descsz > MAX_BUILD_ID || memcmp((char *)data->d_buf + name_off, "GNU", 4))
				continue;
			if (!fits_more(s, (size_t)nh.n_descsz * 2 + 1))
				return -EFBIG;
			s->build_id = malloc((size_t)nh.n_descsz * 2 + 1);
			s->other_bytes += (size_t)nh.n_descsz * 2 + 1;
			for (size_t b = 0; s->build_id && b < nh.n_descsz; b++)
				sprintf(s->build_id + 2 * b, "%02x", desc[b]);
			break;
		}
	}
	return 0;
}

struct elfsyms *elfsyms__load(const char *path)
{
	return elfsyms__load_within(path, SIZE_MAX);
}

struct elfsyms *elfsyms__load_within(const char *path, size_t max_bytes)
{
	struct elfsyms *s = calloc(1, sizeof(*s));
	struct elf_file file;
	Elf_Scn *table;
	Elf *elf;
	size_t nr_phdrs = 0;
	int err;

	if (!s)
		return NULL;
	s->max_bytes = max_bytes;
	s->other_bytes = sizeof(*s);
	err = elf_file__open_within(path, max_bytes, &file);
	elf = file.elf;
	if (!err && elf_getphdrnum(elf, &nr_phdrs))
		err = -ENOEXEC;
	if (err)
		goto cleanup;
	err = load_segments(s, elf, nr_phdrs);
	if (!err)
		err = load_interp_and_build_id(s, elf, nr_phdrs);
	s->table_room = fits_more(s, 0) ? s->max_bytes - s->other_bytes : 0;
	/* .symtab names static functions too; a stripped file keeps only .dynsym. */
	table = elfsyms_find_section(elf, SHT_SYMTAB);
	if (!err && table)
		err = readable(s, elfsyms_load_symbols(s, elf, table));
	s->full = s->nr > 0;
	if (!err && s->nr == 0 && (table = elfsyms_find_section(elf, SHT_DYNSYM))) {
		elfsyms_forget_symbols(s);
		err = readable(s, elfsyms_load_symbols(s, elf, table));
	}
	if (!err)
		err = elfsyms_load_debug_names(s, elf);
cleanup:
	elf_file__close(&file);
	if (err) {
		elfsyms__free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

size_t elfsyms__bytes(const struct elfsyms *s)
{
	return s->table_bytes + s->other_bytes;
}

size_t elfsyms__table_bytes(const struct elfsyms *s)
{
	return s->table_bytes;
}

bool elfsyms__over_budget(const struct elfsyms *s)
{
	return s->over_budget;
}

bool elfsyms__full(const struct elfsyms *s)
{
	return s->full;
}

size_t elfsyms__malformed(const struct elfsyms *s)
{
	return s->malformed;
}

void elfsyms__free(struct elfsyms *s)
{
	if (!s)
		return;
	free(s->syms);
	free(s->names);
	free(s->more_names);
	free(s->segs);
	free(s->interp);
	free(s->build_id);
	free(s->debuglink);
	free(s);
}

static bool covers(const struct symbol *sym, uint64_t off)
{
	return !sym->label && off >= sym->offset &&
	       (off < sym->offset + sym->size || off == sym->offset);
}

/* The index of the first symbol starting after off: candidates lie before it. */
static size_t after(const struct elfsyms *s, uint64_t off)
{
	return BSEARCH_UPPER(s->syms, s->nr, offset, off);
}

const char *elfsyms__find(const struct elfsyms *s, uint64_t off, uint64_t *start)
{
	/*
	 * The closest start that covers off is the innermost symbol. Aliases sit together,
	 * best name first: walk back to the first of them, then take the first that covers.
	 */
	for (size_t i = after(s, off), scanned = 0; i-- > 0 && scanned < 64; scanned++) {
		size_t first = i;

		while (first > 0 && s->syms[first - 1].offset == s->syms[i].offset)
			first--;
		for (size_t j = first; j <= i; j++) {
			if (covers(&s->syms[j], off)) {
				if (start)
					*start = s->syms[j].offset;
				return s->syms[j].name;
			}
		}
		i = first;
	}
	return NULL;
}

const char *elfsyms__lookup(const struct elfsyms *s, uint64_t off)
{
	return elfsyms__find(s, off, NULL);
}

const char *elfsyms__label_before(const struct elfsyms *s, uint64_t off, uint64_t *start)
{
	size_t i = after(s, off);

	while (i-- > 0) {
		const struct symbol *sym = &s->syms[i];

		/* A sized function between: off lies past its end, in nobody's code. */
		if (!sym->label && sym->size)
			return NULL;
		/* The best name of that address: the first of its names. */
		while (i > 0 && s->syms[i - 1].offset == sym->offset)
			sym = &s->syms[--i];
		*start = sym->offset;
		return sym->name;
	}
	return NULL;
}

bool elfsyms__vaddr_of(const struct elfsyms *s, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < s->nr_segs; i++) {
		const struct segment *seg = &s->segs[i];

		if (off >= seg->offset && off - seg->offset < seg->memsz) {
			*vaddr = off - seg->offset + seg->vaddr;
			return true;
		}
	}
	return false;
}

bool elfsyms__file_offset_of(const struct elfsyms *s, uint64_t vaddr, uint64_t *off)
{
	return file_offset_of(s, vaddr, off);
}

uint64_t elfsyms__offset_of(const struct elfsyms *s, const char *name)
{
	for (size_t i = 0; s && i < s->nr; i++) {
		if (!s->syms[i].label && !strcmp(s->syms[i].name, name))
			return s->syms[i].offset;
	}
	return 0;
}

uint64_t elfsyms__size_at(const struct elfsyms *s, uint64_t off)
{
	size_t lo = 0, hi = s->nr;
	uint64_t size = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->nr && s->syms[lo].offset == off; lo++) {
		if (s->syms[lo].size > size)
			size = s->syms[lo].size;
	}
	return size;
}

const char *elfsyms__interp(const struct elfsyms *s)
{
	return s->interp;
}

const char *elfsyms__build_id(const struct elfsyms *s)
{
	return s->build_id;
}

const char *elfsyms__debuglink(const struct elfsyms *s, uint32_t *crc)
{
	*crc = s->debuglink_crc;
	return s->debuglink;
}

bool elfsyms__has_debugdata(const struct elfsyms *s)
{
	return s->has_debugdata && !s->from_debugdata;
}
