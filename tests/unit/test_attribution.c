// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "attribution.h"

TestSuite(attribution);

#define EXE(sym) { .object = "/app", .symbol = sym, .in_executable = true }
#define LIB(obj, sym) { .object = obj, .symbol = sym }
#define LIBC(sym) { .object = "/libc.so.6", .symbol = sym, .in_allocator = true }

/* main -> MPI_Init -> ompi_mpi_init -> opal_malloc -> malloc */
static const struct frame mpi_init[] = {
	LIBC("malloc"),
	LIB("/libopen-pal.so", "opal_malloc"),
	LIB("/libmpi.so", "ompi_mpi_init"),
	LIB("/libmpi.so", "MPI_Init"),
	EXE("main"),
	LIBC("__libc_start_call_main"),
	LIBC("__libc_start_main_impl"),
	EXE("_start"),
};

Test(attribution, entry_names_the_first_library_function_under_the_program)
{
	struct attribution a = attribute(mpi_init, 8, ATTRIBUTE_ENTRY);

	cr_assert(eq(sz, a.frame, 3));
	cr_assert(a.complete);
}

Test(attribution, caller_names_the_innermost_function_outside_the_allocator)
{
	struct attribution a = attribute(mpi_init, 8, ATTRIBUTE_CALLER);

	cr_assert(eq(sz, a.frame, 1));
	cr_assert(a.complete);
}

Test(attribution, the_programs_own_malloc_is_charged_to_the_allocator)
{
	static const struct frame direct[] = {
		LIBC("malloc"), EXE("make_buffer"), EXE("main"), LIBC("__libc_start_call_main"),
	};
	struct attribution a = attribute(direct, 4, ATTRIBUTE_ENTRY);

	cr_assert(eq(sz, a.frame, 0));
	cr_assert(a.complete);
	cr_assert(eq(sz, attribute(direct, 4, ATTRIBUTE_CALLER).frame, 1));
}

Test(attribution, a_library_call_inside_the_allocator_is_skipped_by_caller)
{
	/* main -> strdup (libc) -> malloc: caller skips strdup, entry names it. */
	static const struct frame dup[] = {
		LIBC("malloc"), LIBC("strdup"), EXE("main"), LIBC("__libc_start_call_main"),
	};

	cr_assert(eq(sz, attribute(dup, 4, ATTRIBUTE_CALLER).frame, 2));
	cr_assert(eq(sz, attribute(dup, 4, ATTRIBUTE_ENTRY).frame, 1));
}

Test(attribution, threads_start_at_start_thread)
{
	static const struct frame thread[] = {
		LIBC("malloc"), LIB("/libt.so", "inner"), LIB("/libt.so", "tgt_work"),
		EXE("worker"), LIBC("start_thread"), LIBC("clone3"),
	};
	struct attribution a = attribute(thread, 6, ATTRIBUTE_ENTRY);

	cr_assert(eq(sz, a.frame, 2));
	cr_assert(a.complete);
}

Test(attribution, a_stack_without_startup_frame_is_incomplete)
{
	/* Truncated after MPI_Init: the entry rule guesses from what it has. */
	struct attribution a = attribute(mpi_init, 4, ATTRIBUTE_ENTRY);

	cr_assert(not(a.complete));
	cr_assert(eq(sz, a.frame, 3));
	cr_assert(eq(sz, attribute(mpi_init, 1, ATTRIBUTE_ENTRY).frame, 0));
}

Test(attribution, rule_names_parse)
{
	enum attribution_rule r;

	cr_assert(eq(int, attribution_rule_parse("caller", &r), 0));
	cr_assert(eq(int, r, ATTRIBUTE_CALLER));
	cr_assert(eq(int, attribution_rule_parse("entry", &r), 0));
	cr_assert(eq(int, r, ATTRIBUTE_ENTRY));
	cr_assert(eq(int, attribution_rule_parse("outer", &r), -EINVAL));
	cr_assert(eq(str, (char *)attribution_rule_name(ATTRIBUTE_CALLER), "caller"));
}
