// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Callers of malloc as -O2 makes them (tests/integration/test_names.c): a function GCC
 * clones for a constant argument (mk_const.constprop.0), one whose aggregate argument it
 * scalarises (mk_isra...isra.0), one whose unlikely path it splits off (nm_cold.cold), a
 * static inline helper it inlines (no symbol at all), and functions that end in a jump to
 * malloc (tail calls: absent from the stack). Each counts its own mallocs in names_truth.
 * Built -O2 -g without frame pointers, as a distribution would (names.h lists the indices).
 */
#include <stdlib.h>
#include <string.h>
#include "names.h"

struct req {
	size_t size;
	char pad[64];
	int flags;
};

long names_truth[NAMES_NR];
/* Sizes the compiler cannot see: no call folds into a constant one. */
volatile size_t names_sizes[4] = { 16, 48, 5000, 32 };

__attribute__((noinline)) static void *mk_const(size_t n, int kind)
{
	void *p;

	names_truth[NAMES_MK_CONST]++;
	p = malloc(n * kind + 1);
	__asm__ volatile("" ::: "memory"); /* not a tail call: its own frame is on the stack */
	return p;
}
/* Only r.size is used: IPA-SRA passes just that. Ends in a jump to malloc. */
__attribute__((noinline)) static void *mk_isra(struct req r, int unused)
{
	(void)unused;
	names_truth[NAMES_MK_ISRA]++;
	return malloc(r.size);
}

__attribute__((cold, noinline)) void names_cold_note(size_t n)
{
	__asm__ volatile("" ::"r"(n));
}

/* The block calling a cold function is cold: it goes to nm_cold.cold, malloc with it. */
__attribute__((noinline)) static void *nm_cold(size_t n, long *where)
{
	void *p = NULL;

	if (n > 4096) {
		names_cold_note(n);
		names_truth[NAMES_NM_COLD]++;
		p = malloc(n);
		names_cold_note(n + 1);
	}
	*where += n;
	return p;
}
static inline __attribute__((always_inline)) void *inl_helper(size_t n)
{
	names_truth[NAMES_INL_HELPER]++;
	return malloc(n);
}

/* Called directly (call tail_alloc): ends in jmp malloc. */
__attribute__((noinline)) static void *tail_alloc(size_t n)
{
	names_truth[NAMES_TAIL_ALLOC]++;
	return malloc(n);
}

/* Called by the program through the PLT: ends in jmp malloc. */
__attribute__((noinline)) void *names_tail_pub(size_t n)
{
	names_truth[NAMES_TAIL_PUB]++;
	return malloc(n);
}

/* Mallocs only through inl_helper, inlined here. */
__attribute__((noinline)) void *names_inline(size_t n)
{
	void *p = inl_helper(n);

	__asm__ volatile("" ::: "memory");
	return p;
}

/* Frees all it allocates: under the entry rule its group ends at 0. */
void names_run_c(int rounds)
{
	struct req r1 = { .size = names_sizes[1] }, r2 = { .size = names_sizes[0] };
	long sum = 0;

	for (int i = 0; i < rounds; i++) {
		void *a = mk_const(names_sizes[0], 3), *b = mk_const(names_sizes[1], 3);
		void *c = mk_isra(i & 1 ? r1 : r2, i);
		void *d = nm_cold(names_sizes[2] + i, &sum), *e = names_inline(names_sizes[3]);
		void *f = tail_alloc(names_sizes[i & 3]);

		free(a);
		free(b);
		free(c);
		free(d);
		free(e);
		free(f);
	}
}
