// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Where a stripped file's other names are: its separate debug file (found by build id or
 * .gnu_debuglink) and the MiniDebugInfo some distributions embed (.gnu_debugdata: an
 * xz-compressed ELF whose .symtab holds the static functions .dynsym lacks).
 */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include "elf_limits.h"
#include "elfsyms_internal.h"

int elfsyms__load_debug(struct elfsyms *s, const char *debug_path)
{
	return elfsyms__load_debug_within(s, debug_path, SIZE_MAX);
}

/* The symbol table of elf (a debug file's) read with s's segments: its own describe nothing. */
static int load_table(const struct elfsyms *s, Elf *elf, size_t max_bytes, struct elfsyms *out)
{
	Elf_Scn *table = elfsyms_find_section(elf, SHT_SYMTAB);
	int err;

	*out = (struct elfsyms){ .segs = s->segs, .nr_segs = s->nr_segs, .table_room = max_bytes };
	if (!table)
		return -ENOENT;
	err = elfsyms_load_symbols(out, elf, table);
	if (!err && out->nr == 0)
		err = -ENOENT;
	if (err)
		elfsyms_forget_symbols(out);
	return err;
}

int elfsyms__load_debug_within(struct elfsyms *s, const char *debug_path, size_t max_bytes)
{
	struct elf_file file;
	struct elfsyms debug;
	int err;

	err = elf_file__open_within(debug_path, max_bytes, &file);
	if (!err)
		err = load_table(s, file.elf, max_bytes, &debug);
	elf_file__close(&file);
	if (err)
		return err;
	elfsyms_forget_symbols(s);
	s->syms = debug.syms;
	s->names = debug.names;
	s->nr = debug.nr;
	s->table_bytes = debug.table_bytes;
	s->full = true;
	return 0;
}

/*
 * xz-decompress in[0, in_size) into at most max_out bytes, the decoder itself taking at most
 * max_decoder for the while it runs (xz's default dictionary: 8 MiB): 0, -EFBIG, -ENOEXEC,
 * -ENOMEM.
 */
static int unxz(const uint8_t *in, size_t in_size, size_t max_out, size_t max_decoder,
		uint8_t **out, size_t *out_size)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	size_t cap = in_size * 4 < max_out ? in_size * 4 : max_out;
	uint8_t *buf = NULL, *grown;
	lzma_ret ret;
	int err = 0;

	if (lzma_stream_decoder(&strm, max_decoder, 0) != LZMA_OK)
		return -ENOMEM;
	strm.next_in = in;
	strm.avail_in = in_size;
	do {
		if (!strm.avail_out) {
			size_t used = strm.total_out;

			if (used >= max_out) {
				err = -EFBIG;
				break;
			}
			cap = used ? (used * 2 < max_out ? used * 2 : max_out) : (cap ? cap : 4096);
			grown = realloc(buf, cap);
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			buf = grown;
			strm.next_out = buf + used;
			strm.avail_out = cap - used;
		}
		ret = lzma_code(&strm, LZMA_FINISH);
	} while (ret == LZMA_OK);
	if (!err && ret != LZMA_STREAM_END)
		err = ret == LZMA_MEMLIMIT_ERROR ? -EFBIG : -ENOEXEC;
	*out_size = strm.total_out;
	lzma_end(&strm);
	if (err) {
		free(buf);
		return err;
	}
	*out = buf;
	return 0;
}

/* Would libelf's bookkeeping of this in-memory ELF's sections fit room? */
static bool headers_fit(const uint8_t *image, size_t size, size_t room)
{
	Elf64_Ehdr eh;

	if (size < sizeof(eh))
		return false;
	memcpy(&eh, image, sizeof(eh));
	return eh.e_shnum && (size_t)eh.e_shnum * ELF_SECTION_COST +
				     (size_t)eh.e_phnum * ELF_SEGMENT_COST <= room;
}

/* Merge debug's symbols (their names in debug.names) into s's. */
static int merge(struct elfsyms *s, struct elfsyms *debug)
{
	struct symbol *all = calloc(s->nr + debug->nr, sizeof(*all));

	if (!all)
		return -ENOMEM;
	memcpy(all, s->syms, s->nr * sizeof(*all));
	memcpy(all + s->nr, debug->syms, debug->nr * sizeof(*all));
	free(s->syms);
	free(debug->syms);
	s->syms = all;
	s->nr += debug->nr;
	s->more_names = debug->names;
	s->table_bytes += debug->table_bytes;
	s->from_debugdata = true;
	elfsyms_sort(s);
	return 0;
}

int elfsyms__load_debugdata_within(struct elfsyms *s, const char *path, size_t max_bytes)
{
	struct elf_file file;
	struct elfsyms debug;
	uint8_t *image = NULL;
	size_t image_size = 0;
	Elf_Scn *scn;
	Elf_Data *data;
	Elf *inner = NULL;
	int err;

	if (!elfsyms__has_debugdata(s))
		return -ENOENT;
	err = elf_file__open_within(path, max_bytes, &file);
	if (err)
		return err;
	scn = elfsyms_find_named_section(file.elf, ".gnu_debugdata");
	data = scn ? elf_rawdata(scn, NULL) : NULL;
	err = -ENOENT;
	if (data && data->d_buf)
		err = unxz(data->d_buf, data->d_size, max_bytes / 2, max_bytes, &image,
			   &image_size);
	elf_file__close(&file);
	if (err)
		return err;
	/* The image, the table read from it and libelf's view of it, all within the room. */
	if (!headers_fit(image, image_size, max_bytes / 2 - image_size / 2))
		err = -EFBIG;
	else if (!(inner = elf_memory((char *)image, image_size)) || elf_kind(inner) != ELF_K_ELF)
		err = -ENOEXEC;
	else
		err = load_table(s, inner, max_bytes - image_size, &debug);
	if (inner)
		elf_end(inner);
	free(image);
	return err ? err : merge(s, &debug);
}
