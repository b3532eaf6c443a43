// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unwind rows checked by hand against a function whose CFI this test writes itself:
 * push rbp / mov rsp,rbp / ... / pop rbp / ret, with the CFA moving mid-body.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "elfsyms.h"
#include "procmaps.h"
#include "self_offset.h"
#include "unwind_table.h"

asm(".pushsection .text\n"
    ".globl ht_framed\n.type ht_framed, @function\n"
    "ht_framed:\n"
    ".cfi_startproc\n"
    "\tpush %rbp\n"		  /* +0, 1 byte */
    ".cfi_def_cfa_offset 16\n"
    ".cfi_offset %rbp, -16\n"
    "\tmov %rsp, %rbp\n"	  /* +1, 3 bytes */
    ".cfi_def_cfa_register %rbp\n"
    "\tnop\n"			  /* +4 */
    "\tpop %rbp\n"		  /* +5 */
    ".cfi_def_cfa %rsp, 8\n"
    ".cfi_restore %rbp\n"
    "\tret\n"			  /* +6 */
    ".cfi_endproc\n"
    ".size ht_framed, .-ht_framed\n"
    ".popsection\n");
extern char ht_framed[];

TestSuite(unwind_table);

static void expect_row(const struct unwind_table *t, uint64_t pc, enum ht_cfa_rule cfa,
		       int cfa_offset, enum ht_reg_rule rbp, int rbp_offset)
{
	const struct ht_unwind_row *row = unwind_table__find(t, pc);

	cr_assert(row != NULL, "no row for pc 0x%lx", (unsigned long)pc);
	cr_expect(eq(u8, row->cfa_rule, cfa), "cfa rule at 0x%lx", (unsigned long)pc);
	cr_expect(eq(i32, row->cfa_offset, cfa_offset), "cfa offset at 0x%lx", (unsigned long)pc);
	cr_expect(eq(u8, row->rbp_rule, rbp), "rbp rule at 0x%lx", (unsigned long)pc);
	if (rbp == HT_REG_AT_CFA)
		cr_expect(eq(i16, row->rbp_offset, rbp_offset), "rbp offset at 0x%lx",
			  (unsigned long)pc);
	cr_expect(eq(u8, row->ra_rule, HT_REG_AT_CFA), "return address at 0x%lx", (unsigned long)pc);
	cr_expect(eq(i16, row->ra_offset, -8));
}

Test(unwind_table, a_cfa_that_moves_mid_body)
{
	struct unwind_table t;
	uint64_t fn = file_offset(ht_framed);

	cr_assert(eq(int, unwind_table__build("/proc/self/exe", &t), 0));
	cr_assert(t.nr > 10);
	expect_row(&t, fn + 0, HT_CFA_RSP, 8, HT_REG_SAME, 0);
	expect_row(&t, fn + 1, HT_CFA_RSP, 16, HT_REG_AT_CFA, -16);
	expect_row(&t, fn + 3, HT_CFA_RSP, 16, HT_REG_AT_CFA, -16);
	expect_row(&t, fn + 4, HT_CFA_RBP, 16, HT_REG_AT_CFA, -16);
	expect_row(&t, fn + 5, HT_CFA_RBP, 16, HT_REG_AT_CFA, -16);
	expect_row(&t, fn + 6, HT_CFA_RSP, 8, HT_REG_SAME, 0);
	/* Rows are sorted and each starts where the last one ended. */
	for (size_t i = 1; i < t.nr; i++)
		cr_assert(t.rows[i - 1].pc < t.rows[i].pc);
	unwind_table__clear(&t);
}

Test(unwind_table, plt_stubs_and_the_outermost_frame_of_libc)
{
	struct unwind_table t;
	size_t plt = 0, outermost = 0;

	cr_assert(eq(int, unwind_table__build("/lib/x86_64-linux-gnu/libc.so.6", &t), 0));
	for (size_t i = 0; i < t.nr; i++) {
		plt += t.rows[i].cfa_rule == HT_CFA_PLT;
		outermost += t.rows[i].ra_rule == HT_REG_UNDEFINED;
	}
	cr_expect(plt >= 1, "libc's .plt has the PLT expression");
	/* clone3 and start_thread mark the end of a thread's stack: rip undefined. */
	cr_expect(outermost >= 1, "an outermost frame in libc");
	unwind_table__clear(&t);
}

/*
 * A small shared object built by the test, its CFI in .eh_frame or (".cfi_sections
 * .debug_frame") only in .debug_frame: the rows must be the same hand-checked ones.
 *   +0 push %rbp; +1 push %rbx; +2 sub $24,%rsp; +6 call; +11 add $24,%rsp; +15 pop %rbx;
 *   +16 pop %rbp; +17 ret
 */
static const char pushes_source[] =
	".text\n.globl pushes\n.type pushes, @function\npushes:\n.cfi_startproc\n"
	"\tpush %rbp\n.cfi_def_cfa_offset 16\n.cfi_offset %rbp, -16\n"
	"\tpush %rbx\n.cfi_def_cfa_offset 24\n.cfi_offset %rbx, -24\n"
	"\tsub $24, %rsp\n.cfi_def_cfa_offset 48\n"
	"\tcall pushes@PLT\n"
	"\tadd $24, %rsp\n.cfi_def_cfa_offset 24\n"
	"\tpop %rbx\n.cfi_def_cfa_offset 16\n"
	"\tpop %rbp\n.cfi_def_cfa_offset 8\n.cfi_restore %rbp\n"
	"\tret\n.cfi_endproc\n.size pushes, .-pushes\n";

static void build_object(const char *dir, const char *name, const char *sections, char *so,
			 size_t size)
{
	char src[512], cmd[2048];
	FILE *f;

	snprintf(src, sizeof(src), "%s/%s.s", dir, name);
	snprintf(so, size, "%s/%s.so", dir, name);
	f = fopen(src, "w");
	cr_assert(f != NULL);
	fprintf(f, "%s%s", sections, pushes_source);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -shared -nostdlib -Wl,--eh-frame-hdr -o %s %s", so, src);
	cr_assert(eq(int, system(cmd), 0), "%s", cmd);
}

static void remove_object(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s.s", dir, name);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s.so", dir, name);
	unlink(path);
	rmdir(dir);
}

static void expect_pushes_rows(const char *so)
{
	struct elfsyms *syms = elfsyms__load(so);
	struct unwind_table t;
	uint64_t fn;

	cr_assert(syms != NULL, "%s", so);
	fn = elfsyms__offset_of(syms, "pushes");
	elfsyms__free(syms);
	cr_assert(fn != 0);
	cr_assert(eq(int, unwind_table__build(so, &t), 0), "%s", so);
	expect_row(&t, fn + 0, HT_CFA_RSP, 8, HT_REG_SAME, 0);
	expect_row(&t, fn + 1, HT_CFA_RSP, 16, HT_REG_AT_CFA, -16);
	expect_row(&t, fn + 2, HT_CFA_RSP, 24, HT_REG_AT_CFA, -16);
	expect_row(&t, fn + 6, HT_CFA_RSP, 48, HT_REG_AT_CFA, -16);
	expect_row(&t, fn + 11, HT_CFA_RSP, 48, HT_REG_AT_CFA, -16);
	expect_row(&t, fn + 15, HT_CFA_RSP, 24, HT_REG_AT_CFA, -16);
	expect_row(&t, fn + 16, HT_CFA_RSP, 16, HT_REG_AT_CFA, -16);
	expect_row(&t, fn + 17, HT_CFA_RSP, 8, HT_REG_SAME, 0);
	unwind_table__clear(&t);
}

Test(unwind_table, an_object_built_here_with_eh_frame)
{
	char dir[] = "/tmp/heaptap-unwind-XXXXXX", so[600];

	cr_assert(mkdtemp(dir) != NULL);
	build_object(dir, "eh", "", so, sizeof(so));
	expect_pushes_rows(so);
	remove_object(dir, "eh");
}

Test(unwind_table, an_object_built_here_with_debug_frame_only)
{
	char dir[] = "/tmp/heaptap-unwind-XXXXXX", so[600], cmd[700];

	cr_assert(mkdtemp(dir) != NULL);
	build_object(dir, "debug", ".cfi_sections .debug_frame\n", so, sizeof(so));
	snprintf(cmd, sizeof(cmd), "readelf -S %s | grep -q '\\.eh_frame_hdr'", so);
	cr_assert(system(cmd) != 0, "the object should have no .eh_frame_hdr");
	expect_pushes_rows(so);
	remove_object(dir, "debug");
}

/* A CFA given as a DWARF expression heaptap does not follow: the row says so. */
Test(unwind_table, an_expression_it_cannot_follow)
{
	static const char source[] =
		".text\n.globl odd\n.type odd, @function\nodd:\n.cfi_startproc\n"
		"\tnop\n"
		/* DW_CFA_def_cfa_expression { DW_OP_breg7 8 } */
		".cfi_escape 0x0f, 0x02, 0x77, 0x08\n"
		"\tnop\n\tret\n.cfi_endproc\n.size odd, .-odd\n";
	char dir[] = "/tmp/heaptap-unwind-XXXXXX", src[128], so[128], cmd[512];
	struct elfsyms *syms;
	struct unwind_table t;
	uint64_t fn;
	FILE *f;

	cr_assert(mkdtemp(dir) != NULL);
	snprintf(src, sizeof(src), "%s/odd.s", dir);
	snprintf(so, sizeof(so), "%s/odd.so", dir);
	f = fopen(src, "w");
	cr_assert(f != NULL);
	fputs(source, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -shared -nostdlib -Wl,--eh-frame-hdr -o %s %s", so, src);
	cr_assert(eq(int, system(cmd), 0), "%s", cmd);
	syms = elfsyms__load(so);
	cr_assert(syms != NULL);
	fn = elfsyms__offset_of(syms, "odd");
	elfsyms__free(syms);
	cr_assert(eq(int, unwind_table__build(so, &t), 0));
	cr_expect(eq(u8, unwind_table__find(&t, fn)->cfa_rule, HT_CFA_RSP));
	cr_expect(eq(u8, unwind_table__find(&t, fn + 1)->cfa_rule, HT_CFA_UNSUPPORTED));
	unwind_table__clear(&t);
	remove_object(dir, "odd");
}

static void ignore(int sig)
{
	(void)sig;
}

/*
 * A handler returns into glibc's signal trampoline, whose CFI says the interrupted
 * registers are in the ucontext_t at rsp. The return address is the trampoline's first
 * byte, so the unwinder looks one byte before it: glibc's FDE starts there on purpose.
 */
Test(unwind_table, the_signal_trampoline_of_libc)
{
	struct sigaction sa = { .sa_handler = ignore }, installed;
	const struct ht_unwind_row *row;
	struct unwind_table t;
	uint64_t restorer;

	cr_assert(eq(int, sigaction(SIGUSR2, &sa, NULL), 0));
	cr_assert(eq(int, sigaction(SIGUSR2, NULL, &installed), 0));
	cr_assert(installed.sa_restorer != NULL, "glibc installs its own restorer");
	restorer = file_offset((const void *)installed.sa_restorer);
	cr_assert(eq(int, unwind_table__build("/lib/x86_64-linux-gnu/libc.so.6", &t), 0));
	row = unwind_table__find(&t, restorer - 1);
	cr_assert(row != NULL);
	cr_expect(eq(u8, row->cfa_rule, HT_CFA_SIGNAL), "rule at __restore_rt - 1");
	row = unwind_table__find(&t, restorer);
	cr_expect(eq(u8, row->cfa_rule, HT_CFA_SIGNAL), "rule at __restore_rt");
	unwind_table__clear(&t);
}

Test(unwind_table, a_file_without_unwind_information)
{
	struct unwind_table t;

	cr_assert(eq(int, unwind_table__build("/proc/self/cmdline", &t), -ENOEXEC));
	cr_assert(eq(int, unwind_table__build("/nonexistent", &t), -ENOENT));
}
