// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A library as large as the build makes it: PAD_FUNCTIONS functions, each with its own FDE
 * and symbol, written by the assembler's .rept (the .eh_frame and .symtab grow with them),
 * and one real function, ALLOC_FN, whose allocator calls are counted. Built without frame
 * pointers, as a distribution builds it: only its CFI unwinds through it.
 */
#include <stdint.h>
#include <stdlib.h>
#include "budget.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* Never called: they are there for their CFI rows and their names. */
#if PAD_FUNCTIONS > 0
#define PAD "heaptap_budget_padding_function_with_a_rather_long_name_\\@"
asm(".pushsection .text\n"
    ".macro budget_pad\n"
    PAD ":\n"
    ".type " PAD ", @function\n"
    ".cfi_startproc\n"
    "\tnop\n"
    ".cfi_adjust_cfa_offset 8\n"
    "\tnop\n"
    ".cfi_adjust_cfa_offset -8\n"
    "\tret\n"
    ".cfi_endproc\n"
    ".size " PAD ", .-" PAD "\n"
    ".endm\n"
    ".rept " STR(PAD_FUNCTIONS) "\n"
    "budget_pad\n"
    ".endr\n"
    ".purgem budget_pad\n"
    ".popsection\n");
#endif

/* Allocate, grow and free, counting each call: a checksum of what the blocks held. */
uint64_t ALLOC_FN(struct budget_counts *c, uint64_t seed)
{
	unsigned char *a = malloc(64 + seed % 64), *b = calloc(16, 8);
	uint64_t sum = seed;

	c->malloc++;
	c->calloc++;
	if (!a || !b)
		abort();
	for (int i = 0; i < 64; i++)
		a[i] = (unsigned char)(seed + i);
	a = realloc(a, 256);
	c->realloc++;
	if (!a)
		abort();
	for (int i = 0; i < 64; i++)
		sum = sum * 31 + a[i] + b[i % 128];
	free(a);
	free(b);
	c->free += 2;
	return sum;
}
