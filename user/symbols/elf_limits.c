// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "elf_limits.h"

/* Section 0's sh_size and sh_info hold the counts that do not fit the header (PN_XNUM). */
static void extended_counts(int fd, const unsigned char *ident, uint64_t shoff, uint64_t *shnum,
			    uint64_t *phnum, bool extended_ph)
{
	union {
		Elf64_Shdr s64;
		Elf32_Shdr s32;
	} sh;
	bool is64 = ident[EI_CLASS] == ELFCLASS64;
	size_t size = is64 ? sizeof(sh.s64) : sizeof(sh.s32);

	if (!shoff || pread(fd, &sh, size, shoff) != (ssize_t)size)
		return; /* no section 0 to read: libelf finds no more than we do */
	if (!*shnum)
		*shnum = is64 ? sh.s64.sh_size : sh.s32.sh_size;
	if (extended_ph)
		*phnum = is64 ? sh.s64.sh_info : sh.s32.sh_info;
}

int elf_headers_within(int fd, size_t max_bytes)
{
	union {
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
	} eh;
	uint64_t shnum, phnum, shoff, cost;
	bool is64;

	if (pread(fd, &eh, sizeof(eh), 0) < (ssize_t)sizeof(eh.e32) ||
	    memcmp(eh.e64.e_ident, ELFMAG, SELFMAG))
		return 0;
	is64 = eh.e64.e_ident[EI_CLASS] == ELFCLASS64;
	shnum = is64 ? eh.e64.e_shnum : eh.e32.e_shnum;
	phnum = is64 ? eh.e64.e_phnum : eh.e32.e_phnum;
	shoff = is64 ? eh.e64.e_shoff : eh.e32.e_shoff;
	if (!shnum || phnum == PN_XNUM)
		extended_counts(fd, eh.e64.e_ident, shoff, &shnum, &phnum, phnum == PN_XNUM);
	if (__builtin_mul_overflow(shnum, ELF_SECTION_COST, &cost) ||
	    __builtin_add_overflow(cost, phnum * ELF_SEGMENT_COST, &cost) || cost > max_bytes)
		return -EFBIG;
	return 0;
}

int elf_file__open_within(const char *path, size_t max_bytes, struct elf_file *out)
{
	int err;

	*out = (struct elf_file){ .fd = -1 };
	elf_version(EV_CURRENT);
	out->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (out->fd < 0)
		return -errno;
	err = elf_headers_within(out->fd, max_bytes);
	/* libelf opens archives and plain text too: only an ELF file has what callers read. */
	if (!err && (!(out->elf = elf_begin(out->fd, ELF_C_READ_MMAP, NULL)) ||
		     elf_kind(out->elf) != ELF_K_ELF))
		err = -ENOEXEC;
	if (err)
		elf_file__close(out);
	return err;
}

void elf_file__close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	*f = (struct elf_file){ .fd = -1 };
}
