// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "accountant.h"

TestSuite(accountant);

static struct charge charge(enum ht_func func, uint32_t tid, int64_t delta, const char *lib,
			    const char *fn)
{
	return (struct charge){ .func = func, .tid = tid, .thread_name = "t", .delta = delta,
				.requested = delta > 0 ? (uint64_t)delta : 0, .library = lib,
				.function = fn };
}

Test(accountant, min_and_max_follow_the_running_balance)
{
	struct balance b = {};

	balance__apply(&b, HT_MALLOC, 40, 30, 1);
	balance__apply(&b, HT_MALLOC, 24, 10, 1);
	balance__apply(&b, HT_FREE, -40, 0, 1);
	balance__apply(&b, HT_FREE, -24, 0, 1);
	balance__apply(&b, HT_FREE, -100, 0, 1);
	cr_assert(eq(i64, b.current, -100));
	cr_assert(eq(i64, b.max, 64));
	cr_assert(eq(i64, b.min, -100));
	cr_assert(eq(u64, b.requested, 40));
	cr_assert(eq(u64, b.calls[HT_MALLOC], 2));
	cr_assert(eq(u64, b.calls[HT_FREE], 3));
}

Test(accountant, failed_calls_count_and_move_nothing)
{
	struct balance b = {};

	balance__apply(&b, HT_MALLOC, 0, 0, 1);
	balance__apply(&b, HT_FREE, 0, 0, 1);
	cr_assert(eq(i64, b.current, 0));
	cr_assert(eq(i64, b.min, 0));
	cr_assert(eq(i64, b.max, 0));
	cr_assert(eq(u64, b.calls[HT_MALLOC], 1));
	cr_assert(eq(u64, b.calls[HT_FREE], 1));
}

Test(accountant, a_free_is_charged_to_the_freeing_group)
{
	struct process_stats ps = {};
	struct function_stats *f;
	struct charge init = charge(HT_MALLOC, 10, 4096, "/lib/libmpi.so", "MPI_Init");
	struct charge fin = charge(HT_FREE, 10, -4096, "/lib/libmpi.so", "MPI_Finalize");

	cr_assert(eq(int, accountant__charge(&ps, &init), 0));
	cr_assert(eq(int, accountant__charge(&ps, &fin), 0));
	accountant__sort(&ps);

	f = ps.functions; /* sorted: MPI_Finalize first */
	cr_assert(eq(str, (char *)f->function, "MPI_Finalize"));
	cr_assert(eq(i64, f->bal.current, -4096));
	cr_assert(eq(i64, f->bal.min, -4096));
	cr_assert(eq(i64, f->bal.max, 0));
	f = f->hh.next;
	cr_assert(eq(str, (char *)f->function, "MPI_Init"));
	cr_assert(eq(i64, f->bal.current, 4096));
	cr_assert(eq(i64, ps.libraries->bal.current, 0));
	cr_assert(eq(i64, ps.libraries->bal.max, 4096));
	cr_assert(eq(i64, ps.total.current, 0));
	cr_assert(eq(u64, HASH_COUNT(ps.functions), 2));
	accountant__clear(&ps);
}

Test(accountant, same_function_name_in_two_libraries_stays_apart)
{
	struct process_stats ps = {};
	struct charge a = charge(HT_MALLOC, 1, 24, "/lib/liba.so", "init");
	struct charge b = charge(HT_MALLOC, 2, 40, "/lib/libb.so", "init");

	accountant__charge(&ps, &a);
	accountant__charge(&ps, &b);
	accountant__sort(&ps);
	cr_assert(eq(u64, HASH_COUNT(ps.functions), 2));
	cr_assert(eq(u64, HASH_COUNT(ps.threads), 2));
	cr_assert(eq(i64, ps.functions->bal.current, 24));
	cr_assert(eq(str, (char *)ps.functions->library, "/lib/liba.so"));
	cr_assert(eq(u32, ps.threads->tid, 1));
	accountant__clear(&ps);
}

/* Groups are remembered by the addresses of the names asked for: new names there are new. */
Test(accountant, names_at_a_reused_address_are_other_groups)
{
	struct process_stats ps = {};
	char lib[32], fn[32];
	struct charge c = charge(HT_MALLOC, 10, 100, lib, fn);
	struct function_stats *f;
	struct library_stats *l;
	int groups = 0;

	strcpy(lib, "/lib/liba.so");
	strcpy(fn, "a_alloc");
	cr_assert(eq(int, accountant__charge(&ps, &c), 0));
	cr_assert(eq(int, accountant__charge(&ps, &c), 0));
	strcpy(lib, "/lib/libb.so"); /* the same buffers, other names */
	strcpy(fn, "b_alloc");
	c.delta = 7;
	cr_assert(eq(int, accountant__charge(&ps, &c), 0));
	strcpy(lib, "/lib/liba.so"); /* the library again, another function */
	cr_assert(eq(int, accountant__charge(&ps, &c), 0));
	accountant__sort(&ps);
	for (f = ps.functions; f; f = f->hh.next, groups++) {
		int64_t want = !strcmp(f->function, "a_alloc") ? 200 : 7;

		cr_expect(eq(i64, f->bal.current, want), "%s %s", f->library, f->function);
	}
	cr_assert(eq(int, groups, 3));
	l = ps.libraries;
	cr_assert(eq(str, l->library, "/lib/liba.so"));
	cr_expect(eq(i64, l->bal.current, 207));
	l = l->hh.next;
	cr_assert(eq(str, l->library, "/lib/libb.so"));
	cr_expect(eq(i64, l->bal.current, 7));
	accountant__clear(&ps);
}
