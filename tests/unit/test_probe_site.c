// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Probe sites on small functions assembled below (never run: only their bytes are read),
 * each with its size, as a compiler would emit them; then on the real C library, against
 * the instruction bytes this test reads from the file itself.
 */
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "elfsyms.h"
#include "heaptap_types.h"
#include "probe_site.h"
#include "self_offset.h"

#define FUNCTION(name, body)                                                                 \
	".globl " #name "\n.type " #name ", @function\n" #name ":\n" body ".size " #name \
	", .-" #name "\n"

asm(".pushsection .text\n"
    /* free's shape: a test, then an emulated jcc. */
    FUNCTION(ps_test_je, "\ttest %rdi, %rdi\n\tje 1f\n\tpush %rbx\n\tpop %rbx\n1:\tret\n")
    /* posix_memalign's: a compare with memory (read only), then a push. */
    FUNCTION(ps_cmp_push, "\tcmpb $0, ps_flag(%rip)\n\tpush %r12\n\tmov %rdx, %r12\n"
			  "\tpop %r12\n\tret\n")
    /* The same, but a loop comes back to the push: its probe would fire twice. */
    FUNCTION(ps_loop_to_site, "\tcmp $1, %eax\n2:\tpush %rbx\n\tpop %rbx\n\tdec %eax\n"
			      "\tjnz 2b\n\tret\n")
    /* A branch into the middle of the prefix. */
    FUNCTION(ps_branch_into, "\ttest %rdi, %rdi\n3:\txor %eax, %eax\n\tpush %rbx\n"
			     "\tpop %rbx\n\tjs 3b\n\tret\n")
    /* reallocarray's: mul writes rdx, the third argument. */
    FUNCTION(ps_writes_arg, "\tmov %rsi, %rax\n\tmul %rdx\n\tjo 1f\n\tret\n1:\tret\n")
    /* A sub-register of an argument is the argument. */
    FUNCTION(ps_writes_edi, "\txor %edi, %edi\n\tpush %rbx\n\tpop %rbx\n\tret\n")
    /* The frame pointer the unwinder reads. */
    FUNCTION(ps_writes_rbp, "\tmov %rsp, %rbp\n\tpush %rbx\n\tpop %rbx\n\tret\n")
    /* Memory. */
    FUNCTION(ps_writes_memory, "\tmovq $0, -8(%rsp)\n\tpush %rbx\n\tpop %rbx\n\tret\n")
    /* An indirect jump could land anywhere, the prefix included. */
    FUNCTION(ps_indirect_jump, "\ttest %rdi, %rdi\n\tje 1f\n\tjmp *%rax\n1:\tret\n")
    /* Already emulated at the entry. */
    FUNCTION(ps_push_first, "\tpush %r12\n\tmov %rdi, %r12\n\tpop %r12\n\tret\n")
    /* Five harmless instructions: past the distance. */
    FUNCTION(ps_too_far, "\ttest %rdi, %rdi\n\ttest %rsi, %rsi\n\ttest %rdx, %rdx\n"
			 "\ttest %rcx, %rcx\n\ttest %r8, %r8\n\tpush %rbx\n\tpop %rbx\n\tret\n")
    /* A ret before anything emulated (ld.so's _dl_debug_state is just that). */
    FUNCTION(ps_ret_first, "\tret\n")
    /* Long nops are not emulated by every kernel: not a site. */
    FUNCTION(ps_long_nop, "\ttest %rdi, %rdi\n\tnopl 0(%rax)\n\txchg %ax, %ax\n\tret\n")
    ".popsection\n"
    ".pushsection .data\nps_flag:\n\t.byte 0\n.popsection\n");

extern const uint8_t ps_test_je[], ps_cmp_push[], ps_loop_to_site[], ps_branch_into[],
	ps_writes_arg[], ps_writes_edi[], ps_writes_rbp[], ps_writes_memory[], ps_indirect_jump[],
	ps_push_first[], ps_too_far[], ps_ret_first[], ps_long_nop[];

TestSuite(probe_site);

/* The site of the assembled function at code, its size read from this binary's symbols. */
static struct probe_site site_of(const uint8_t *code)
{
	struct elfsyms *syms = elfsyms__load("/proc/self/exe");
	uint64_t entry = file_offset(code), size;
	struct probe_site s;

	cr_assert(syms != NULL);
	size = elfsyms__size_at(syms, entry);
	cr_assert(size > 0 && size < 64, "the assembled function has its .size");
	probe_site__choose(code, size, size, 0x1000, &s);
	elfsyms__free(syms);
	return s;
}

static void expect_entry(const uint8_t *code, enum probe_site_rule rule)
{
	struct probe_site s = site_of(code);

	cr_expect(eq(u64, s.site, s.entry));
	cr_expect(eq(int, s.rule, rule));
}

Test(probe_site, a_test_then_a_jcc_moves_past_the_test)
{
	struct probe_site s = site_of(ps_test_je);

	cr_assert(eq(int, s.rule, SITE_MOVED));
	cr_assert(eq(u64, s.site, s.entry + 3), "test %%rdi,%%rdi is 3 bytes");
	cr_assert(s.nr_insns >= 2 && !s.insns[0].emulated && s.insns[1].emulated);
}

Test(probe_site, a_compare_with_memory_then_a_push_moves_past_the_compare)
{
	struct probe_site s = site_of(ps_cmp_push);

	cr_assert(eq(int, s.rule, SITE_MOVED));
	cr_assert(eq(u64, s.site, s.entry + 7), "cmpb $0,x(%%rip) is 7 bytes");
}

Test(probe_site, a_branch_onto_the_site_keeps_the_entry)
{
	struct probe_site s = site_of(ps_loop_to_site);

	cr_expect(eq(int, s.rule, SITE_ENTRY_BRANCH_INTO));
	cr_expect(eq(u64, s.site, s.entry));
	cr_expect(eq(u64, s.target, s.entry + 3), "the loop lands on the push");
}

Test(probe_site, a_branch_into_the_prefix_keeps_the_entry)
{
	struct probe_site s = site_of(ps_branch_into);

	cr_expect(eq(int, s.rule, SITE_ENTRY_BRANCH_INTO));
	cr_expect(eq(u64, s.site, s.entry));
	cr_expect(eq(u64, s.target, s.entry + 3), "the js lands on the xor");
}

Test(probe_site, a_prefix_writing_an_argument_keeps_the_entry)
{
	struct probe_site s = site_of(ps_writes_arg);

	cr_expect(eq(int, s.rule, SITE_ENTRY_PREFIX_WRITES));
	cr_expect(eq(u64, s.site, s.entry));
	cr_expect(eq(u64, s.culprit, s.entry + 3), "the mul, not the mov to rax");
	cr_expect(eq(str, s.what, "%rdx"));
	expect_entry(ps_writes_edi, SITE_ENTRY_PREFIX_WRITES);
	expect_entry(ps_writes_rbp, SITE_ENTRY_PREFIX_WRITES);
}

Test(probe_site, a_prefix_writing_memory_keeps_the_entry)
{
	struct probe_site s = site_of(ps_writes_memory);

	cr_expect(eq(int, s.rule, SITE_ENTRY_PREFIX_WRITES));
	cr_expect(eq(str, s.what, "memory"));
	cr_expect(eq(u64, s.site, s.entry));
}

Test(probe_site, an_indirect_jump_keeps_the_entry)
{
	struct probe_site s = site_of(ps_indirect_jump);

	cr_expect(eq(int, s.rule, SITE_ENTRY_INDIRECT_JUMP));
	cr_expect(eq(u64, s.site, s.entry));
	cr_expect(eq(u64, s.culprit, s.entry + 5));
}

Test(probe_site, other_entries)
{
	struct probe_site s;

	expect_entry(ps_push_first, SITE_ENTRY_EMULATED);
	expect_entry(ps_too_far, SITE_ENTRY_TOO_FAR);
	expect_entry(ps_ret_first, SITE_ENTRY_PREFIX_BRANCHES);
	expect_entry(ps_long_nop, SITE_ENTRY_PREFIX_BRANCHES);
	/* Without the function's size no branch can be ruled out. */
	probe_site__choose(ps_test_je, 8, 0, 0x1000, &s);
	cr_expect(eq(int, s.rule, SITE_ENTRY_NO_EXTENT));
	cr_expect(eq(u64, s.site, 0x1000));
}

Test(probe_site, the_kernels_emulated_instructions)
{
	static const struct {
		uint8_t bytes[6];
		size_t len;
		bool emulated;
	} cases[] = {
		{ { 0x55 }, 1, true },			     /* push %rbp */
		{ { 0x41, 0x54 }, 2, true },		     /* push %r12 */
		{ { 0x48, 0x55 }, 2, false },		     /* rex.W push: not the kernel's */
		{ { 0x90 }, 1, true },			     /* nop */
		{ { 0x66, 0x90 }, 2, false },		     /* xchg %ax,%ax */
		{ { 0x0f, 0x1f, 0x00 }, 3, false },	     /* nopl: only newer kernels */
		{ { 0x74, 0x05 }, 2, true },		     /* je rel8 */
		{ { 0x0f, 0x84, 1, 2, 3, 4 }, 6, true },     /* je rel32 */
		{ { 0xe9, 1, 2, 3, 4 }, 5, true },	     /* jmp rel32 */
		{ { 0xe8, 1, 2, 3, 4 }, 5, true },	     /* call rel32 */
		{ { 0x66, 0xe8, 1, 2 }, 4, false },	     /* callw: refused by the kernel */
		{ { 0xff, 0xe0 }, 2, false },		     /* jmp *%rax */
		{ { 0x48, 0x85, 0xff }, 3, false },	     /* test %rdi,%rdi */
		{ { 0xc3 }, 1, false },			     /* ret */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect(eq(int, probe_site__emulated(cases[i].bytes, cases[i].len),
			     cases[i].emulated), "case %zu", i);
}

/* The C library this test runs with. */
static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (strstr(info->dlpi_name, "/libc.so"))
		snprintf(data, 4096, "%s", info->dlpi_name);
	return 0;
}

/*
 * The site this test expects from the bytes alone, for the prologues Debian's glibc
 * builds: a push is emulated; test %rdi,%rdi (48 85 ff) and cmpb $0,x(%rip) (80 3d ..
 * 00) write only flags; mov %rsi,%rax (48 89 f0) writes rax, but then mul %rdx (48 f7
 * e2) writes an argument. -1: a prologue this test does not know.
 */
static int64_t expected_skip(const uint8_t *b)
{
	size_t skip = 0;

	for (int step = 0; step < 4; step++) {
		const uint8_t *c = b + skip;

		bool push = (c[0] >= 0x50 && c[0] <= 0x57) ||
			    (c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57);
		bool jcc = (c[0] >= 0x70 && c[0] <= 0x7f) ||
			   (c[0] == 0x0f && c[1] >= 0x80 && c[1] <= 0x8f);

		if (push || jcc)
			return skip;
		if (c[0] == 0x48 && c[1] == 0x85 && c[2] == 0xff)
			skip += 3;
		else if (c[0] == 0x80 && c[1] == 0x3d && c[6] == 0x00)
			skip += 7;
		else if (c[0] == 0x48 && c[1] == 0x89 && c[2] == 0xf0)
			skip += 3;
		else if (c[0] == 0x48 && c[1] == 0xf7 && c[2] == 0xe2)
			return 0;
		else
			return -1;
	}
	return -1;
}

Test(probe_site, the_c_library_entry_points)
{
	char libc[4096] = "";
	struct elfsyms *syms;
	int fd, moved = 0;

	dl_iterate_phdr(find_libc, libc);
	cr_assert(libc[0] != '\0', "this test runs with a shared C library");
	syms = elfsyms__load(libc);
	fd = open(libc, O_RDONLY);
	cr_assert(syms && fd >= 0);
	for (int f = 0; f < HT_NR_FUNCS; f++) {
		uint64_t entry = elfsyms__offset_of(syms, ht_func_names[f]);
		uint8_t bytes[32];
		struct probe_site s;
		int64_t skip;

		cr_assert(entry != 0, "%s is in %s", ht_func_names[f], libc);
		cr_assert(eq(sz, (size_t)pread(fd, bytes, sizeof(bytes), entry), sizeof(bytes)));
		skip = expected_skip(bytes);
		cr_assert(skip >= 0, "%s begins %02x %02x %02x %02x: a prologue this test does "
			  "not know, extend expected_skip()", ht_func_names[f], bytes[0], bytes[1],
			  bytes[2], bytes[3]);
		probe_site__of_file(fd, entry, elfsyms__size_at(syms, entry), &s);
		cr_expect(eq(u64, s.site, entry + skip), "%s: site +%llu, expected +%lld",
			  ht_func_names[f], (unsigned long long)(s.site - entry), (long long)skip);
		moved += s.site != entry;
	}
	/* Debian 12's free begins with test %rdi,%rdi: at least that one moves. */
	cr_expect(moved > 0, "no entry point of %s moved", libc);
	close(fd);
	elfsyms__free(syms);
}
