// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "address_ranges.h"
#include "bsearch_upper.h"

static int reserve(struct address_ranges *ar, size_t more)
{
	struct range_piece *p;
	size_t cap;

	if (ar->nr + more <= ar->cap)
		return 0;
	cap = ar->cap ? ar->cap * 2 : 64;
	while (cap < ar->nr + more)
		cap *= 2;
	p = realloc(ar->pieces, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	ar->pieces = p;
	ar->cap = cap;
	return 0;
}

/* The first piece ending after addr. */
static size_t first_after(const struct address_ranges *ar, uint64_t addr)
{
	return BSEARCH_UPPER(ar->pieces, ar->nr, end, addr);
}

static void charge(struct range_change *c, const struct range_piece *p, int sign)
{
	int64_t bytes = (int64_t)(p->end - p->start) * sign;

	if (p->before_tracing) {
		if (sign < 0)
			c->before_tracing += p->end - p->start;
		return;
	}
	c->bytes[p->kind] += bytes;
	if (p->heap)
		c->heap += bytes;
}

/*
 * Remove [start, end), splitting the pieces it cuts; the parts removed go to taken (room
 * for ar->nr + 1 pieces, or NULL). Returns how many were taken. Needs room for one more
 * piece in ar (a split), reserved by the caller.
 */
static size_t take(struct address_ranges *ar, uint64_t start, uint64_t end,
		   struct range_piece *taken, struct range_change *c)
{
	size_t i = first_after(ar, start), n = 0;

	while (i < ar->nr && ar->pieces[i].start < end) {
		struct range_piece *p = &ar->pieces[i], cut = *p;

		if (cut.start < start)
			cut.start = start;
		if (cut.end > end)
			cut.end = end;
		charge(c, &cut, -1);
		if (taken)
			taken[n] = cut;
		n++;
		if (p->start < start && p->end > end) {
			/* A hole in the middle: the piece becomes two. */
			memmove(p + 2, p + 1, (ar->nr - i - 1) * sizeof(*p));
			ar->nr++;
			p[1] = *p;
			p[0].end = start;
			p[1].start = end;
			return n;
		}
		if (p->start < start) {
			p->end = start;
			i++;
		} else if (p->end > end) {
			p->start = end;
			i++;
		} else {
			memmove(p, p + 1, (ar->nr - i - 1) * sizeof(*p));
			ar->nr--;
		}
	}
	return n;
}

/* Put a piece where nothing is mapped (take() made room). */
static void put(struct address_ranges *ar, const struct range_piece *piece, struct range_change *c)
{
	size_t i = first_after(ar, piece->start);

	memmove(&ar->pieces[i + 1], &ar->pieces[i], (ar->nr - i) * sizeof(*piece));
	ar->pieces[i] = *piece;
	ar->nr++;
	charge(c, piece, +1);
}

int address_ranges__map(struct address_ranges *ar, const struct range_piece *piece,
			struct range_change *c)
{
	uint64_t before_tracing = c->before_tracing;

	if (piece->end <= piece->start)
		return 0;
	if (reserve(ar, 2))
		return -ENOMEM;
	take(ar, piece->start, piece->end, NULL, c);
	/*
	 * Replaced, not unmapped: ld.so maps segments over the range it reserved. (And a
	 * process attached to is seeded with its maps read after its first calls, so a new
	 * mapping may already be there as one made before tracing.)
	 */
	c->before_tracing = before_tracing;
	put(ar, piece, c);
	return 0;
}

int address_ranges__unmap(struct address_ranges *ar, uint64_t start, uint64_t len,
			  struct range_change *c)
{
	if (!len)
		return 0;
	if (reserve(ar, 1))
		return -ENOMEM;
	take(ar, start, start + len, NULL, c);
	return 0;
}

int address_ranges__remap(struct address_ranges *ar, uint64_t old, uint64_t old_len,
			  uint64_t new, uint64_t new_len, bool heap, bool keep_old,
			  bool uncharged, struct range_change *c)
{
	struct range_piece *moved, grown = { .kind = MAP_KIND_ANON, .heap = heap };
	struct range_change ignored = {};
	size_t n;

	if (reserve(ar, ar->nr + 4))
		return -ENOMEM;
	moved = malloc((ar->nr + 1) * sizeof(*moved));
	if (!moved)
		return -ENOMEM;
	/* The old range stays mapped: its pieces are copied, not moved. */
	n = take(ar, old, old + old_len, moved, keep_old ? &ignored : c);
	if (keep_old) {
		for (size_t i = 0; i < n; i++)
			put(ar, &moved[i], &ignored);
	}
	if (n) {
		grown.kind = moved[n - 1].kind;
		grown.heap = heap || moved[n - 1].heap;
	}
	/* Room where it lands: it may land over other mappings (MREMAP_FIXED). */
	take(ar, new, new + new_len, NULL, c);
	for (size_t i = 0; i < n; i++) {
		struct range_piece p = moved[i];
		uint64_t from = p.start - old, to = p.end - old;

		if (from >= new_len)
			continue; /* cut off by a shrink: unmapped, and counted so when taken */
		if (to > new_len)
			to = new_len;
		if (!keep_old && p.before_tracing) {
			/* It stays before tracing: taking it counted it as unmapped. */
			c->before_tracing -= to - from;
		}
		p.start = new + from;
		p.end = new + to;
		put(ar, &p, c);
	}
	if (new_len > old_len) {
		grown.before_tracing = uncharged;
		grown.start = new + old_len;
		grown.end = new + new_len;
		put(ar, &grown, c);
	}
	free(moved);
	return 0;
}

uint64_t address_ranges__bytes(const struct address_ranges *ar)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < ar->nr; i++)
		bytes += ar->pieces[i].end - ar->pieces[i].start;
	return bytes;
}

void address_ranges__clear(struct address_ranges *ar)
{
	free(ar->pieces);
	*ar = (struct address_ranges){};
}
