// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The naming rules (naming.h): clone suffixes folded, names demangled, C++'s allocation
 * operators told, a public name before its profiling alias, a size-0 label as the last
 * resort, and code no symbol covers named by its function's start from .eh_frame. The
 * assembly below lays out this test binary's own code for the last three.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "elfsyms.h"
#include "funcstarts.h"
#include "naming.h"
#include "self_offset.h"
#include "source_name.h"
#include "strpool.h"
#include "symcache.h"

asm(".pushsection .text\n"
    /* One function, two names: Open MPI's way (the public one weak, the P one global). */
    ".globl PHT_Send\n.type PHT_Send, @function\n"
    ".weak HT_Send\n.type HT_Send, @function\n"
    "PHT_Send:\nHT_Send:\n\tret\n.size PHT_Send, 1\n.size HT_Send, 1\n"
    /* A label in code, no type, no size (ld.so's _dl_start_user): the nearest name. */
    "ht_label:\n\tnop\n\tnop\n\tnop\n\tnop\n"
    /* A sized function, then a function no symbol names, with its own FDE. */
    ".globl ht_before_anon\n.type ht_before_anon, @function\n"
    "ht_before_anon:\n\tret\n.size ht_before_anon, 1\n"
    "\t.cfi_startproc\n\tnop\n\tnop\n\tnop\n\tret\n\t.cfi_endproc\n"
    /* Past a sized function, no label, no FDE: nothing names it but its offset. */
    ".globl ht_sized_end\n.type ht_sized_end, @function\n"
    "ht_sized_end:\n\tret\n.size ht_sized_end, 1\n\tnop\n\tnop\n"
    ".popsection\n");

extern char PHT_Send[], ht_label[], ht_before_anon[], ht_sized_end[];

TestSuite(naming);

static void expect_base(const char *raw, const char *want)
{
	size_t len = source_name__base_len(raw);

	cr_expect(eq(sz, len, strlen(want)), "%s: folds to '%.*s', not '%s'", raw, (int)len, raw,
		  want);
	cr_expect(eq(int, strncmp(raw, want, len), 0), "%s", raw);
}

Test(naming, clone_suffixes_fold_into_the_source_name)
{
	expect_base("mk_const.constprop.0", "mk_const");
	expect_base("mk_isra.isra.0", "mk_isra");
	expect_base("mk_isra.constprop.0.isra.0", "mk_isra");
	expect_base("nm_cold.cold", "nm_cold");
	expect_base("foo.isra.0.cold", "foo");
	expect_base("foo.part.0", "foo");
	expect_base("foo.part.0.constprop.1", "foo");
	expect_base("foo.lto_priv.0", "foo");
	expect_base("foo.cold.12", "foo");
	expect_base("foo.llvm.1234567", "foo");
	expect_base("_ZN2ns4Pool4grabEm.constprop.0", "_ZN2ns4Pool4grabEm");
	/* Dots that are no compiler's suffix stay. */
	expect_base("foo.bar", "foo.bar");
	expect_base("foo.2", "foo.2");
	expect_base("foo.bar.0", "foo.bar.0");
	expect_base("foo.0.1", "foo.0.1");
	expect_base("malloc", "malloc");
	expect_base(".constprop.0", ".constprop.0");
}

static void expect_source_name(const char *raw, const char *want)
{
	char *got = source_name__of(raw);

	cr_assert(got != NULL);
	cr_expect(eq(str, got, (char *)want), "%s", raw);
	free(got);
}

Test(naming, names_are_demangled_after_folding)
{
	expect_source_name("_ZN2ns4Pool4grabEm", "ns::Pool::grab(unsigned long)");
	expect_source_name("_ZN2ns4Pool4grabEm.constprop.0", "ns::Pool::grab(unsigned long)");
	expect_source_name("_ZN2ns10make_arrayIiEEPT_m", "int* ns::make_array<int>(unsigned long)");
	expect_source_name("_Znwm", "operator new(unsigned long)");
	/* Rust, legacy and v0 manglings. */
	expect_source_name("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write");
	expect_source_name("_RNvCs1234_4core3foo", "core::foo");
	expect_source_name("mk_const.constprop.0", "mk_const");
	expect_source_name("main", "main");
	/* Not a mangling after all: kept as it is. */
	expect_source_name("_Z_bad", "_Z_bad");
}

Test(naming, cxx_allocation_operators_are_entry_points)
{
	static const char *const yes[] = {
		"_Znwm", "_Znam", "_Znwj", "_ZnwmRKSt9nothrow_t", "_ZnwmSt11align_val_t",
		"_ZnwmSt11align_val_tRKSt9nothrow_t", "_ZdlPv", "_ZdlPvm", "_ZdlPvSt11align_val_t",
		"_ZdlPvmSt11align_val_t", "_ZdlPvRKSt9nothrow_t", "_ZdaPv", "_ZdaPvm",
		"_ZdaPvSt11align_val_tRKSt9nothrow_t",
	};
	static const char *const no[] = { "malloc", "_ZN2ns4Pool4grabEm", "_ZN3FoonwEm",
					  "_ZN2ns4Pool9make_nodeEv" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		cr_expect(source_name__is_cxx_allocator(yes[i]), "%s", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_expect(source_name__is_cxx_allocator(no[i]) == false, "%s", no[i]);
}

Test(naming, a_public_name_before_its_profiling_alias)
{
	struct elfsyms *syms = elfsyms__load("/proc/self/exe");

	cr_expect(source_name__is_profiling_alias("PMPI_Send", "MPI_Send"));
	cr_expect(source_name__is_profiling_alias("MPI_Send", "PMPI_Send") == false);
	cr_expect(source_name__is_profiling_alias("PMPI_Send", "MPI_Recv") == false);
	cr_assert(syms != NULL);
	/* PHT_Send is global and HT_Send weak, yet the public name is the one a user called. */
	cr_expect(eq(str, (char *)elfsyms__lookup(syms, file_offset(PHT_Send)), "HT_Send"));
	elfsyms__free(syms);
}

Test(naming, a_size_0_label_is_the_last_resort)
{
	struct elfsyms *syms = elfsyms__load("/proc/self/exe");
	uint64_t label = file_offset(ht_label), start = 0;

	cr_assert(syms != NULL);
	/* It covers nothing ... */
	cr_expect(eq(ptr, (void *)elfsyms__lookup(syms, label + 2), NULL));
	/* ... but names the code after it when nothing else does. */
	cr_expect(eq(str, (char *)elfsyms__label_before(syms, label + 2, &start), "ht_label"));
	cr_expect(eq(u64, start, label));
	/* Never past a sized function: that code is nobody's. */
	cr_expect(eq(ptr, (void *)elfsyms__label_before(syms, file_offset(ht_sized_end) + 1,
							&start),
		     NULL));
	/* Nor is a label a definition of a function. */
	cr_expect(eq(u64, elfsyms__offset_of(syms, "ht_label"), 0));
	elfsyms__free(syms);
}

Test(naming, unnamed_code_is_named_by_its_function_start)
{
	struct funcstarts *fs = funcstarts__load_within("/proc/self/exe", 64 << 20);
	struct symcache *cache = symcache__new();
	struct object_file *obj = symcache__get(cache, 1 /* dev */, 1 /* inode */, "/proc/self/exe");
	uint64_t anon = file_offset(ht_before_anon) + 1, start = 0;
	struct named_frame f[4];
	char want[64];

	cr_assert(fs != NULL && obj != NULL);
	cr_expect(funcstarts__start_of(fs, anon + 2, &start));
	cr_expect(eq(u64, start, anon));
	cr_expect(funcstarts__start_of(fs, file_offset(ht_sized_end) + 1, &start) == false);
	/* Every address of that function gets one name: its start's. */
	snprintf(want, sizeof(want), "exe+0x%llx", (unsigned long long)anon);
	for (uint64_t at = anon; at < anon + 4; at++) {
		cr_assert(eq(sz, naming__at(obj, at, f, 4), 1));
		cr_expect(eq(str, (char *)f[0].function, want));
		cr_expect(eq(ptr, (void *)f[0].symbol, NULL));
	}
	/* Past a sized function, no label, no FDE: the address itself. */
	snprintf(want, sizeof(want), "exe+0x%llx",
		 (unsigned long long)file_offset(ht_sized_end) + 1);
	cr_assert(eq(sz, naming__at(obj, file_offset(ht_sized_end) + 1, f, 4), 1));
	cr_expect(eq(str, (char *)f[0].function, want));
	/* A named function keeps its raw symbol beside its source name. */
	cr_assert(eq(sz, naming__at(obj, file_offset(ht_before_anon), f, 4), 1));
	cr_expect(eq(str, (char *)f[0].function, "ht_before_anon"));
	cr_expect(eq(str, (char *)f[0].symbol, "ht_before_anon"));
	funcstarts__free(fs);
	symcache__free(cache);
}

/* The pool remembers recent answers by the caller's address: new text there is new text. */
Test(naming, strpool_answers_by_text_not_by_address)
{
	struct strpool pool = {};
	char buf[32];
	const char *first, *again, *other;

	strcpy(buf, "opal_init_util");
	first = strpool__intern(&pool, buf);
	again = strpool__intern(&pool, buf);
	cr_assert(eq(ptr, (void *)first, (void *)again));
	cr_assert(eq(str, (char *)first, "opal_init_util"));
	strcpy(buf, "MPI_Init"); /* the same address, another name */
	other = strpool__intern(&pool, buf);
	cr_assert(eq(str, (char *)other, "MPI_Init"));
	cr_assert(eq(str, (char *)first, "opal_init_util"));
	cr_assert(eq(ptr, (void *)strpool__intern(&pool, "opal_init_util"), (void *)first));
	strpool__clear(&pool);
}

/* A pool asked to remember more (stack records: 4,096) answers the same way. */
Test(naming, a_larger_memo_answers_by_text_too)
{
	struct strpool pool = { .memo_bits = 12 };
	char buf[32];
	const char *first;

	strcpy(buf, "opal_init_util");
	first = strpool__intern(&pool, buf);
	cr_assert(eq(ptr, (void *)strpool__intern(&pool, buf), (void *)first));
	strcpy(buf, "MPI_Init");
	cr_assert(eq(str, (char *)strpool__intern(&pool, buf), "MPI_Init"));
	cr_assert(eq(str, (char *)first, "opal_init_util"));
	strpool__clear(&pool);
	cr_assert(eq(uint, pool.memo_bits, 12), "kept across clears");
}
