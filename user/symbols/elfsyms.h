/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Function symbols of one ELF file, for address lookup and for placing probes. */
#ifndef HEAPTAP_ELFSYMS_H
#define HEAPTAP_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfsyms;

/*
 * Load the function symbols of the file at path: .symtab when present, else .dynsym.
 * Returns NULL with errno set on failure (ENOENT, ENOEXEC for a non-ELF file...).
 */
struct elfsyms *elfsyms__load(const char *path);
/*
 * The same within a budget: what it keeps (elfsyms__bytes) stays within max_bytes. A table
 * that would take more is not read, its size known from the section headers, and the next
 * tried (.dynsym after .symtab); elfsyms__over_budget says so. NULL with errno EFBIG when
 * not even the file's program headers fit.
 */
struct elfsyms *elfsyms__load_within(const char *path, size_t max_bytes);
void elfsyms__free(struct elfsyms *syms);
/* Bytes it keeps, all told; of those, its symbol table's (symbols and their names). */
size_t elfsyms__bytes(const struct elfsyms *syms);
size_t elfsyms__table_bytes(const struct elfsyms *syms);
/* A table was left unread because it did not fit the budget. */
bool elfsyms__over_budget(const struct elfsyms *syms);

/*
 * Name of the function whose [value, value + size) holds the file offset off, or NULL
 * when no symbol covers it. Zero-sized symbols cover only their own address.
 */
const char *elfsyms__lookup(const struct elfsyms *syms, uint64_t file_offset);
/* The same, and *start the symbol's own offset (start may be NULL). */
const char *elfsyms__find(const struct elfsyms *syms, uint64_t file_offset, uint64_t *start);
/*
 * Where no symbol covers file_offset, the last resort: the nearest size-0 name before it
 * (ld.so's _dl_start_user, a label in assembly; NOTYPE symbols in code count) when no sized
 * function lies between. NULL else.
 */
const char *elfsyms__label_before(const struct elfsyms *syms, uint64_t file_offset,
				  uint64_t *start);
/* File offset <-> virtual address through the file's PT_LOAD segments. */
bool elfsyms__vaddr_of(const struct elfsyms *syms, uint64_t file_offset, uint64_t *vaddr);
bool elfsyms__file_offset_of(const struct elfsyms *syms, uint64_t vaddr, uint64_t *file_offset);

/*
 * File offset of the defined function `name` (the form uprobes take), or 0 when the file
 * does not define it. Versioned names match their base name ("malloc@@GLIBC_2.2.5").
 */
uint64_t elfsyms__offset_of(const struct elfsyms *syms, const char *name);
/* Size of the function at file offset off (the largest of its aliases'), 0 if unknown. */
uint64_t elfsyms__size_at(const struct elfsyms *syms, uint64_t file_offset);

/* True when the symbols came from a .symtab, static functions included. */
bool elfsyms__full(const struct elfsyms *syms);
/*
 * Problems met reading the file's own tables: a table past the end of the file, a string
 * table whose last name is not terminated, names outside it. 0 for a sound file.
 */
size_t elfsyms__malformed(const struct elfsyms *syms);

/*
 * Replace a stripped file's .dynsym with the .symtab of its separate debug file (Debian's
 * -dbg packages: /usr/lib/debug/.build-id/xx/yyyy.debug). 0 or -errno, unchanged then.
 */
int elfsyms__load_debug(struct elfsyms *syms, const char *debug_path);
/* The same, its table taking at most max_bytes: -EFBIG, and unchanged, when larger. */
int elfsyms__load_debug_within(struct elfsyms *syms, const char *debug_path, size_t max_bytes);

/* Its .gnu_debuglink file name (no directory) and that file's CRC32, or NULL. */
const char *elfsyms__debuglink(const struct elfsyms *syms, uint32_t *crc);
/* It has a .gnu_debugdata section (MiniDebugInfo) not merged in yet. */
bool elfsyms__has_debugdata(const struct elfsyms *syms);
/*
 * Merge in the .symtab of the MiniDebugInfo of the file at path (the file syms came from):
 * the static functions a stripped file's .dynsym lacks. The decompressed image and the
 * table it gives take at most max_bytes. 0 or -errno (-ENOENT: none; -EFBIG: too large).
 */
int elfsyms__load_debugdata_within(struct elfsyms *syms, const char *path, size_t max_bytes);

/* The interpreter (PT_INTERP) of a dynamically linked program, else NULL. */
const char *elfsyms__interp(const struct elfsyms *syms);
/* Hex build id or NULL. */
const char *elfsyms__build_id(const struct elfsyms *syms);

#endif
