// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "alloc_spec.h"

TestSuite(alloc_spec);

static struct alloc_spec spec;
static char err[512];

static const char example[] = "# FUNCTION      KIND            ARGUMENTS (1-based)\n"
			      "dlm_alloc       malloc          size=arg1\n"
			      "dlm_free        free            ptr=arg1\n"
			      "\n"
			      "pool_alloc      malloc          size=arg2   # the pool is arg1\n"
			      "pool_resize     realloc         ptr=arg2 size=arg3\n"
			      "pool_release    free            ptr=arg2\n"
			      "gbrk            brk             increment=arg1\n"
			      "pool_posix posix_memalign size=arg6 out=arg4 align=arg5\n";

Test(alloc_spec, the_example_of_the_format)
{
	cr_assert(eq(int, alloc_spec__parse("/etc/heaptap/dlm.spec", example, &spec, err,
					    sizeof(err)), 0), "%s", err);
	cr_assert(eq(str, spec.name, "dlm"));
	cr_assert(eq(sz, spec.nr, 7));
	cr_assert(eq(str, spec.entries[2].function, "pool_alloc"));
	cr_assert(eq(int, spec.entries[2].kind, SPEC_MALLOC));
	cr_assert(eq(u32, alloc_spec__arg(&spec.entries[2], ROLE_SIZE), 2));
	cr_assert(eq(u32, alloc_spec__arg(&spec.entries[2], ROLE_PTR), 0));
	cr_assert(eq(u32, spec.entries[2].line, 5));
	cr_assert(eq(u32, alloc_spec__arg(&spec.entries[3], ROLE_PTR), 2));
	cr_assert(eq(u32, alloc_spec__arg(&spec.entries[3], ROLE_SIZE), 3));
	cr_assert(eq(int, spec.entries[5].kind, SPEC_BRK));
	cr_assert(eq(u32, alloc_spec__arg(&spec.entries[5], ROLE_INCREMENT), 1));
	cr_assert(eq(u32, alloc_spec__arg(&spec.entries[6], ROLE_OUT), 4));
	cr_assert(eq(u32, alloc_spec__arg(&spec.entries[6], ROLE_ALIGN), 5));
	cr_assert(eq(u32, alloc_spec__arg(&spec.entries[6], ROLE_SIZE), 6));
}

Test(alloc_spec, tbb_is_built_in)
{
	cr_assert(eq(int, alloc_spec__load("tbb", &spec, err, sizeof(err)), 0), "%s", err);
	cr_assert(eq(str, spec.name, "tbb"));
	cr_assert(eq(sz, spec.nr, 8));
	cr_assert(eq(str, spec.entries[4].function, "scalable_aligned_malloc"));
	cr_assert(eq(u32, alloc_spec__arg(&spec.entries[4], ROLE_SIZE), 1));
	cr_assert(eq(u32, alloc_spec__arg(&spec.entries[4], ROLE_ALIGN), 2));
	for (size_t i = 0; i < spec.nr; i++)
		cr_assert(ne(str, spec.entries[i].function, "scalable_msize"));
}

static void assert_rejected(const char *text, const char *message)
{
	cr_assert(eq(int, alloc_spec__parse("bad.spec", text, &spec, err, sizeof(err)), -EINVAL));
	cr_assert(eq(str, err, (char *)message));
}

Test(alloc_spec, an_unknown_kind_names_file_and_line)
{
	assert_rejected("a malloc size=arg1\n\nb mallocate size=arg1\n",
			"bad.spec:3: unknown kind 'mallocate': malloc, calloc, realloc, free, "
			"memalign, posix_memalign or brk");
}

Test(alloc_spec, a_missing_argument)
{
	assert_rejected("# pools\npool_resize realloc ptr=arg2\n",
			"bad.spec:2: missing argument: pool_resize (realloc) needs size=argN");
	assert_rejected("f calloc size=arg1\n",
			"bad.spec:1: missing argument: f (calloc) needs count=argN");
}

Test(alloc_spec, arguments_that_do_not_fit)
{
	assert_rejected("f free ptr=arg7\n",
			"bad.spec:1: bad argument 'ptr=arg7': ROLE=argN with N from 1 to 6");
	assert_rejected("f free ptr=2\n",
			"bad.spec:1: bad argument 'ptr=2': ROLE=argN with N from 1 to 6");
	assert_rejected("f free ptr=arg1 size=arg2\n",
			"bad.spec:1: 'size=arg2' does not belong here");
	assert_rejected("f malloc size=arg1 size=arg2\n",
			"bad.spec:1: 'size=arg2' does not belong here");
	assert_rejected("f\n", "bad.spec:1: f has no kind: malloc, calloc, realloc, free, "
			       "memalign, posix_memalign or brk");
}

Test(alloc_spec, a_function_described_twice)
{
	assert_rejected("f free ptr=arg1\ng malloc size=arg1\nf malloc size=arg1\n",
			"bad.spec:3: f is described twice: one line per function");
}

Test(alloc_spec, an_empty_spec)
{
	assert_rejected("# nothing\n\n", "bad.spec:3: bad.spec describes no entry point");
}

Test(alloc_spec, a_file_that_is_not_there)
{
	cr_assert(eq(int, alloc_spec__load("/nonexistent/x.spec", &spec, err, sizeof(err)),
		     -ENOENT));
	cr_assert(eq(str, err, "/nonexistent/x.spec: No such file or directory (an allocator is "
			       "tbb or a spec file)"));
}

Test(alloc_spec, a_file_is_read_and_named_after_itself)
{
	char path[] = "/tmp/heaptap-spec-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs("gbrk brk increment=arg1\n", f);
	fclose(f);
	cr_assert(eq(int, alloc_spec__load(path, &spec, err, sizeof(err)), 0), "%s", err);
	cr_assert(eq(str, spec.name, strrchr(path, '/') + 1));
	cr_assert(eq(str, spec.entries[0].function, "gbrk"));
	remove(path);
}
