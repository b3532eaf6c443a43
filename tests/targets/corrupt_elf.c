// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * corrupt_elf KIND IN OUT: a copy of the shared library IN with one crafted section, as a
 * hostile user could ship it. Only what the dynamic loader never reads is touched (section
 * headers, .eh_frame, .strtab), so the copy still loads and runs. KIND:
 *   truncated-eh-frame   .eh_frame's size cut in the middle of its first FDE
 *   cie-loop             every FDE's CIE pointer names the FDE before it, the first itself
 *   whole-address-space  the first FDE covers [0, 2 GiB): the whole library and more
 *   unterminated-strtab  .strtab one byte short: its last name has no terminating NUL
 *   sizes-beyond-file    .symtab's size sixteen times the file's
 * Offsets are found from the section headers; anything unexpected fails loudly.
 */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *image;
static size_t image_size;

static void fail(const char *what)
{
	fprintf(stderr, "corrupt_elf: %s\n", what);
	exit(1);
}

static void *at(uint64_t offset, uint64_t size)
{
	if (offset > image_size || size > image_size - offset)
		fail("an offset past the end of the file");
	return image + offset;
}

static uint32_t get32(uint64_t offset)
{
	uint32_t v;

	memcpy(&v, at(offset, 4), 4);
	return v;
}

static void put32(uint64_t offset, uint32_t v)
{
	memcpy(at(offset, 4), &v, 4);
}

static Elf64_Shdr *section(const char *name)
{
	Elf64_Ehdr *eh = at(0, sizeof(*eh));
	Elf64_Shdr *sh = at(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(*sh));
	const Elf64_Shdr *strs;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(*sh) || eh->e_shstrndx >= eh->e_shnum)
		fail("not a 64-bit ELF file with section headers");
	strs = &sh[eh->e_shstrndx];
	for (int i = 0; i < eh->e_shnum; i++) {
		const char *s = at(strs->sh_offset + sh[i].sh_name, strlen(name) + 1);

		if (!strcmp(s, name))
			return &sh[i];
	}
	fprintf(stderr, "corrupt_elf: no section %s\n", name);
	exit(1);
}

static void truncate_eh_frame(void)
{
	Elf64_Shdr *eh = section(".eh_frame");
	uint32_t cie_length = get32(eh->sh_offset);

	if (get32(eh->sh_offset + 4) != 0 || 4 + cie_length + 24 > eh->sh_size)
		fail(".eh_frame does not start with a CIE and an FDE");
	eh->sh_size = 4 + cie_length + 10; /* the FDE's length now runs past the end */
}

static void cie_loop(void)
{
	Elf64_Shdr *eh = section(".eh_frame");
	uint64_t off = 0, previous = UINT64_MAX;
	int fdes = 0;

	while (off + 8 <= eh->sh_size) {
		uint32_t length = get32(eh->sh_offset + off);

		if (length == 0 || length == UINT32_MAX)
			break; /* the terminator (or a 64-bit entry, which GCC never writes) */
		if (get32(eh->sh_offset + off + 4) != 0) {
			/* The CIE pointer is the distance back from its own field. */
			uint64_t target = previous == UINT64_MAX ? off : previous;

			put32(eh->sh_offset + off + 4, (uint32_t)(off + 4 - target));
			previous = off;
			fdes++;
		}
		off += 4 + (uint64_t)length;
	}
	if (fdes < 2)
		fail(".eh_frame has fewer than two FDEs");
}

static uint64_t uleb(uint64_t *off)
{
	uint64_t v = 0;
	unsigned char b;

	for (int shift = 0; shift < 64; shift += 7) {
		b = *(unsigned char *)at((*off)++, 1);
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	fail("a LEB128 too long");
	return 0;
}

static void whole_address_space(void)
{
	Elf64_Shdr *eh = section(".eh_frame");
	uint64_t cie = eh->sh_offset, p = cie + 9, fde, field;
	const char *augmentation = at(p, 3);

	/* GCC's C CIE: version 1, "zR", FDE pointers pc-relative signed 4-byte. */
	if (get32(cie + 4) != 0 || *(unsigned char *)at(cie + 8, 1) != 1 ||
	    strcmp(augmentation, "zR"))
		fail(".eh_frame's first CIE is not GCC's \"zR\"");
	p += 3;
	uleb(&p);	 /* code alignment */
	uleb(&p);	 /* data alignment (SLEB128: same length) */
	p++;		 /* return address register, a byte in version 1 */
	uleb(&p);	 /* augmentation data length */
	if (*(unsigned char *)at(p, 1) != 0x1b)
		fail("FDE pointers are not pcrel|sdata4");
	fde = cie + 4 + get32(cie);
	field = eh->sh_addr + (fde - eh->sh_offset) + 8;
	if (get32(fde + 4) == 0 || field > INT32_MAX)
		fail("no FDE after the first CIE");
	put32(fde + 8, (uint32_t)-(int32_t)field); /* starts at address 0 */
	put32(fde + 12, INT32_MAX);		   /* and runs for 2 GiB */
}

static void unterminated_strtab(void)
{
	Elf64_Shdr *strtab = section(".strtab");

	if (strtab->sh_size < 2 || *(char *)at(strtab->sh_offset + strtab->sh_size - 1, 1) ||
	    !*(char *)at(strtab->sh_offset + strtab->sh_size - 2, 1))
		fail(".strtab does not end with a name and its NUL");
	strtab->sh_size--;
}

static void sizes_beyond_file(void)
{
	section(".symtab")->sh_size = image_size * 16;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *kind;
		void (*corrupt)(void);
	} kinds[] = {
		{ "truncated-eh-frame", truncate_eh_frame },
		{ "cie-loop", cie_loop },
		{ "whole-address-space", whole_address_space },
		{ "unterminated-strtab", unterminated_strtab },
		{ "sizes-beyond-file", sizes_beyond_file },
	};
	FILE *in, *out;
	size_t i;

	if (argc != 4)
		fail("usage: corrupt_elf KIND IN OUT");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && strcmp(kinds[i].kind, argv[1]); i++)
		;
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		fail("unknown KIND");
	in = fopen(argv[2], "rb");
	if (!in || fseek(in, 0, SEEK_END) || (long)(image_size = ftell(in)) < 0 ||
	    fseek(in, 0, SEEK_SET) || !(image = malloc(image_size)) ||
	    fread(image, 1, image_size, in) != image_size)
		fail("cannot read IN");
	fclose(in);
	kinds[i].corrupt();
	out = fopen(argv[3], "wb");
	if (!out || fwrite(image, 1, image_size, out) != image_size || fclose(out))
		fail("cannot write OUT");
	free(image);
	return 0;
}
