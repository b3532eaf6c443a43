/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A process's mapped address ranges as the OS view saw them made: each piece anonymous or
 * file-backed, the allocator's own or not, or mapped before tracing began. munmap and
 * mremap of part of a mapping, or of addresses never seen mapped, move the balance by
 * exactly the bytes that were mapped; bytes mapped before tracing are told apart.
 */
#ifndef HEAPTAP_ADDRESS_RANGES_H
#define HEAPTAP_ADDRESS_RANGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum map_kind {
	MAP_KIND_ANON, /* anonymous mmap */
	MAP_KIND_FILE, /* file-backed mmap */
	MAP_KIND_BRK,  /* the break's heap (brk, sbrk): never a range here */
	NR_MAP_KINDS,
};

struct range_piece {
	uint64_t start, end; /* [start, end), page-aligned */
	uint8_t kind;	     /* enum map_kind */
	bool heap;	     /* made by the allocator inside a malloc-family call */
	bool before_tracing; /* there when tracing began: never charged */
};

struct address_ranges {
	struct range_piece *pieces; /* sorted by start, never overlapping */
	size_t nr, cap;
};

/* What one change did to the mapped bytes heaptap charged. */
struct range_change {
	int64_t bytes[NR_MAP_KINDS];
	int64_t heap;		 /* of those, the allocator's own pieces */
	uint64_t before_tracing; /* bytes unmapped that were mapped before tracing */
};

static inline int64_t range_change_total(const struct range_change *c)
{
	return c->bytes[MAP_KIND_ANON] + c->bytes[MAP_KIND_FILE] + c->bytes[MAP_KIND_BRK];
}

/*
 * Map [start, start + len): whatever it replaces is unmapped first (MAP_FIXED). Pieces
 * before_tracing are not charged. 0 or -ENOMEM (then nothing changed).
 */
int address_ranges__map(struct address_ranges *ar, const struct range_piece *piece,
			struct range_change *c);
/* Unmap [start, start + len). 0 or -ENOMEM. */
int address_ranges__unmap(struct address_ranges *ar, uint64_t start, uint64_t len,
			  struct range_change *c);
/*
 * mremap: [old, old + old_len) now lies at [new, new + new_len), its pieces in order; the
 * part past old_len is new memory of the kind of the last piece (anonymous if none), the
 * allocator's if heap, mapped before tracing if uncharged. keep_old: MREMAP_DONTUNMAP or
 * old_len 0 (the old range stays). 0 or -ENOMEM.
 */
int address_ranges__remap(struct address_ranges *ar, uint64_t old, uint64_t old_len,
			  uint64_t new, uint64_t new_len, bool heap, bool keep_old,
			  bool uncharged, struct range_change *c);
/* Bytes mapped now, before_tracing pieces included. */
uint64_t address_ranges__bytes(const struct address_ranges *ar);
void address_ranges__clear(struct address_ranges *ar);

#endif
