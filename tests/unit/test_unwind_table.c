// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unwind rows checked by hand against a function whose CFI this test writes itself:
 * push rbp / mov rsp,rbp / ... / pop rbp / ret, with the CFA moving mid-body.
 */
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
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
