// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Symbol lookup and call-site decoding on this test binary itself, whose layout the
 * assembly below fixes: sizes, a gap no symbol covers, aliases, calls through the PLT
 * and the GOT, and a direct call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "callsite.h"
#include "elfsyms.h"
#include "procmaps.h"
#include "self_offset.h"

asm(".pushsection .text\n"
    /* A 3-byte function followed by 4 bytes that belong to no function. */
    ".globl ht_sized\n.type ht_sized, @function\n"
    "ht_sized:\n\tret\n\tnop\n\tnop\n.size ht_sized, 3\n"
    "ht_no_function:\n\tnop\n\tnop\n\tnop\n\tnop\n"
    /* Two names for one function: the one with fewer underscores wins. */
    ".globl __ht_alias\n.type __ht_alias, @function\n"
    ".weak ht_alias\n.type ht_alias, @function\n"
    "__ht_alias:\nht_alias:\n\tret\n.size __ht_alias, 1\n.size ht_alias, 1\n"
    /* Never run: only its bytes are read. */
    ".globl ht_caller\n.type ht_caller, @function\n"
    "ht_caller:\n\tsub $8, %rsp\n"
    "\tcall aligned_alloc@PLT\n.globl ht_after_aligned_alloc\nht_after_aligned_alloc:\n"
    "\tcall memalign@PLT\n.globl ht_after_memalign\nht_after_memalign:\n"
    "\tcall *memalign@GOTPCREL(%rip)\n.globl ht_after_memalign_got\nht_after_memalign_got:\n"
    "\tcall ht_sized\n.globl ht_after_direct\nht_after_direct:\n"
    "\tadd $8, %rsp\n\tret\n.size ht_caller, .-ht_caller\n"
    ".popsection\n");

extern char ht_sized[], ht_no_function[], __ht_alias[], ht_caller[];
extern char ht_after_aligned_alloc[], ht_after_memalign[], ht_after_memalign_got[],
	ht_after_direct[];

TestSuite(symbols);

Test(symbols, lookup_respects_sizes)
{
	struct elfsyms *syms = elfsyms__load("/proc/self/exe");
	uint64_t sized = file_offset(ht_sized);

	cr_assert(syms != NULL);
	cr_assert(elfsyms__full(syms));
	cr_assert(eq(str, (char *)elfsyms__lookup(syms, sized), "ht_sized"));
	cr_assert(eq(str, (char *)elfsyms__lookup(syms, sized + 2), "ht_sized"));
	/* Past its end: no name rather than the nearest wrong one. */
	cr_assert(eq(ptr, (void *)elfsyms__lookup(syms, sized + 3), NULL));
	cr_assert(eq(ptr, (void *)elfsyms__lookup(syms, file_offset(ht_no_function) + 3), NULL));
	cr_assert(eq(u64, elfsyms__offset_of(syms, "ht_sized"), sized));
	cr_assert(eq(u64, elfsyms__offset_of(syms, "no_such_function"), 0));
	elfsyms__free(syms);
}

Test(symbols, aliases_prefer_the_plain_name)
{
	struct elfsyms *syms = elfsyms__load("/proc/self/exe");

	cr_assert(syms != NULL);
	cr_assert(eq(str, (char *)elfsyms__lookup(syms, file_offset(__ht_alias)), "ht_alias"));
	cr_assert(eq(u64, elfsyms__offset_of(syms, "__ht_alias"),
		     elfsyms__offset_of(syms, "ht_alias")));
	elfsyms__free(syms);
}

Test(symbols, glibc_entry_points_and_interpreter)
{
	struct elfsyms *libc = elfsyms__load("/lib/x86_64-linux-gnu/libc.so.6");
	struct elfsyms *self = elfsyms__load("/proc/self/exe");
	uint64_t malloc_at;

	cr_assert(libc != NULL && self != NULL);
	malloc_at = elfsyms__offset_of(libc, "malloc");
	cr_assert(ne(u64, malloc_at, 0));
	cr_assert(eq(u64, elfsyms__offset_of(libc, "__libc_malloc"), malloc_at));
	cr_assert(eq(str, (char *)elfsyms__lookup(libc, malloc_at), "malloc"));
	/* glibc 2.36: two names, one address. */
	cr_assert(eq(u64, elfsyms__offset_of(libc, "aligned_alloc"),
		     elfsyms__offset_of(libc, "memalign")));
	cr_assert(eq(sz, strlen(elfsyms__build_id(libc)), 40));
	cr_assert(eq(str, (char *)elfsyms__interp(self), "/lib64/ld-linux-x86-64.so.2"));
	elfsyms__free(libc);
	elfsyms__free(self);
}

Test(symbols, missing_and_non_elf_files)
{
	cr_assert(eq(ptr, elfsyms__load("/nonexistent/lib.so"), NULL));
	cr_assert(eq(int, errno, ENOENT));
	cr_assert(eq(ptr, elfsyms__load("/proc/self/cmdline"), NULL));
	cr_assert(eq(int, errno, ENOEXEC));
}

Test(symbols, callsite_names_the_called_symbol)
{
	struct callsite *cs = callsite__load("/proc/self/exe");
	uint64_t target;

	cr_assert(cs != NULL);
	cr_assert(eq(str, (char *)callsite__callee(cs, file_offset(ht_after_aligned_alloc)),
		     "aligned_alloc"));
	cr_assert(eq(str, (char *)callsite__callee(cs, file_offset(ht_after_memalign)),
		     "memalign"));
	cr_assert(eq(str, (char *)callsite__callee(cs, file_offset(ht_after_memalign_got)),
		     "memalign"));
	/* A direct call is no PLT call; its target is known instead. */
	cr_assert(eq(ptr, (void *)callsite__callee(cs, file_offset(ht_after_direct)), NULL));
	cr_assert(callsite__direct_target(cs, file_offset(ht_after_direct), &target));
	cr_assert(eq(u64, target, file_offset(ht_sized)));
	cr_assert(not(callsite__direct_target(cs, file_offset(ht_after_aligned_alloc), &target)));
	/* Not after a call at all. */
	cr_assert(eq(ptr, (void *)callsite__callee(cs, file_offset(ht_caller)), NULL));
	callsite__free(cs);
}
