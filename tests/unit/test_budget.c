// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Budgets: the accounting (per file and in all), the sizes the options take, and each
 * loader keeping within the room it is given: unwind tables, symbols, call sites, and the
 * symbol cache that charges files for all of them.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "budget.h"
#include "callsite.h"
#include "elf_limits.h"
#include "elfsyms.h"
#include "symcache.h"
#include "unwind_table.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LIBM "/lib/x86_64-linux-gnu/libm.so.6"

TestSuite(budget);

Test(budget, room_is_the_smaller_of_what_the_file_and_the_total_have_left)
{
	struct budget b = { .limits = { .per_file = 100, .total = 250 } };
	uint64_t a = 0, c = 0, d = 0;

	cr_expect(eq(u64, budget__room(&b, 0), 100));
	cr_expect(eq(int, budget__take(&b, &a, 100), BUDGET_OK));
	cr_expect(eq(u64, budget__room(&b, a), 0));
	cr_expect(eq(int, budget__take(&b, &a, 1), BUDGET_FILE), "a file past its own limit");
	cr_expect(eq(u64, a, 100));
	cr_expect(eq(int, budget__take(&b, &c, 90), BUDGET_OK));
	/* 60 left in all: a new file may take 60, not 100. */
	cr_expect(eq(u64, budget__room(&b, 0), 60));
	cr_expect(eq(int, budget__check(&b, 0, 61), BUDGET_TOTAL));
	cr_expect(eq(int, budget__take(&b, &d, 61), BUDGET_TOTAL));
	cr_expect(eq(u64, d, 0), "nothing taken when refused");
	cr_expect(eq(u64, b.used, 190));
	/* Too big for the file alone: the per-file limit is the reason, whatever is left. */
	cr_expect(eq(int, budget__check(&b, 0, 101), BUDGET_FILE));
	cr_expect(eq(int, budget__why(&b, 0), BUDGET_TOTAL));
	budget__give_back(&b, &c, 90);
	cr_expect(eq(u64, c, 0));
	cr_expect(eq(u64, b.used, 100));
	cr_expect(eq(int, budget__why(&b, 0), BUDGET_FILE));
	/* Giving back more than held gives back what is held. */
	budget__give_back(&b, &a, 1000);
	cr_expect(eq(u64, a, 0));
	cr_expect(eq(u64, b.used, 0));
	cr_expect(eq(str, (char *)budget_verdict_name(BUDGET_FILE), "per-file budget"));
	cr_expect(eq(str, (char *)budget_verdict_name(BUDGET_TOTAL), "total budget"));
}

Test(budget, limits_never_overflow)
{
	struct budget b = { .limits = { .per_file = UINT64_MAX, .total = UINT64_MAX } };
	uint64_t a = 0;

	cr_expect(eq(int, budget__take(&b, &a, UINT64_MAX - 1), BUDGET_OK));
	cr_expect(eq(int, budget__take(&b, &a, 2), BUDGET_FILE));
	cr_expect(eq(u64, budget__room(&b, a), 1));
}

Test(budget, sizes_as_the_options_write_them)
{
	struct budget_limits l = { 1, 2 };
	uint64_t v;
	char buf[16];

	cr_expect(eq(int, budget_size_parse("512K", 4, UINT64_MAX, &v), 0));
	cr_expect(eq(u64, v, 512 << 10));
	cr_expect(eq(int, budget_size_parse("64m", 3, UINT64_MAX, &v), 0));
	cr_expect(eq(u64, v, 64 << 20));
	cr_expect(eq(int, budget_size_parse("2G", 2, UINT64_MAX, &v), 0));
	cr_expect(eq(u64, v, 2ULL << 30));
	cr_expect(eq(int, budget_size_parse("1000", 4, UINT64_MAX, &v), 0));
	cr_expect(eq(u64, v, 1000));
	cr_expect(eq(int, budget_size_parse("", 0, UINT64_MAX, &v), -EINVAL));
	cr_expect(eq(int, budget_size_parse("M", 1, UINT64_MAX, &v), -EINVAL));
	cr_expect(eq(int, budget_size_parse("1MB", 3, UINT64_MAX, &v), -EINVAL));
	cr_expect(eq(int, budget_size_parse("-1", 2, UINT64_MAX, &v), -EINVAL));
	cr_expect(eq(int, budget_size_parse("1.5M", 4, UINT64_MAX, &v), -EINVAL));
	cr_expect(eq(int, budget_size_parse("257M", 4, 256ULL << 20, &v), -ERANGE));
	cr_expect(eq(int, budget_size_parse("99999999999999999999999", 23, UINT64_MAX, &v),
		     -ERANGE));
	cr_expect(eq(int, budget_size_parse("17179869184G", 12, UINT64_MAX, &v), -ERANGE));

	cr_expect(eq(int, budget_limits_parse("1M,8M", UINT64_MAX, &l), 0));
	cr_expect(eq(u64, l.per_file, 1 << 20));
	cr_expect(eq(u64, l.total, 8 << 20));
	cr_expect(eq(int, budget_limits_parse("2M", UINT64_MAX, &l), 0));
	cr_expect(eq(u64, l.per_file, 2 << 20));
	cr_expect(eq(u64, l.total, 8 << 20), "the total left out keeps its value");
	cr_expect(eq(int, budget_limits_parse(",16M", UINT64_MAX, &l), 0));
	cr_expect(eq(u64, l.per_file, 2 << 20));
	cr_expect(eq(u64, l.total, 16 << 20));
	for (const char *bad = "0\0,0\0,\0\0" "1M,\0" "1M,2M,3M\0x,1M\0"; *bad || bad[1];
	     bad += strlen(bad) + 1) {
		cr_expect(budget_limits_parse(bad, UINT64_MAX, &l) != 0, "'%s' accepted", bad);
		cr_expect(eq(u64, l.total, 16 << 20), "'%s' changed the limits", bad);
	}

	cr_expect(eq(str, (char *)budget_size_text(64 << 20, buf, sizeof(buf)), "64M"));
	cr_expect(eq(str, (char *)budget_size_text(3ULL << 30, buf, sizeof(buf)), "3G"));
	cr_expect(eq(str, (char *)budget_size_text(1536 << 10, buf, sizeof(buf)), "1.5M"));
	cr_expect(eq(str, (char *)budget_size_text(30 << 10, buf, sizeof(buf)), "30K"));
	cr_expect(eq(str, (char *)budget_size_text(100, buf, sizeof(buf)), "100"));
}

/* libc's .eh_frame is about 150 KB and builds 28k rows (440 KiB). */
Test(budget, unwind_tables_within_the_budget)
{
	struct unwind_table full, t;
	size_t rows_bytes;

	cr_assert(eq(int, unwind_table__build(LIBC, &full), 0));
	rows_bytes = full.nr * sizeof(struct ht_unwind_row);
	cr_assert(rows_bytes > 256 << 10, "libc has %zu rows only", full.nr);

	/* Room for the rows: the same table. */
	cr_expect(eq(int, unwind_table__build_within(LIBC, rows_bytes, &t), 0));
	cr_expect(eq(sz, t.nr, full.nr));
	unwind_table__clear(&t);
	/* The section fits, its rows do not. */
	cr_expect(eq(int, unwind_table__build_within(LIBC, rows_bytes - 1, &t), -EFBIG));
	cr_expect(eq(sz, t.nr, 0));
	cr_expect(eq(ptr, t.rows, NULL));
	/* The section itself does not fit: refused before it is read. */
	cr_expect(eq(int, unwind_table__build_within(LIBC, 4096, &t), -EFBIG));
	cr_expect(eq(int, unwind_table__build_within(LIBC, 0, &t), -EFBIG));
	cr_expect(eq(sz, t.nr, 0));
	unwind_table__clear(&full);
}

static bool has_symbol(const struct elfsyms *s, const char *name)
{
	return elfsyms__offset_of(s, name) != 0;
}

/* This very program: its .symtab names static functions its .dynsym does not define. */
__attribute__((noinline)) static void a_static_function(void)
{
	asm volatile("");
}

Test(budget, symbols_within_the_budget)
{
	struct elfsyms *full = elfsyms__load("/proc/self/exe"), *s;
	size_t bytes;

	cr_assert(full != NULL);
	a_static_function();
	cr_assert(has_symbol(full, "a_static_function"));
	cr_expect(eq(int, elfsyms__over_budget(full), false));
	bytes = elfsyms__bytes(full);
	cr_assert(elfsyms__table_bytes(full) > 4096);

	/* Exactly its size: all of it. */
	s = elfsyms__load_within("/proc/self/exe", bytes);
	cr_assert(s != NULL);
	cr_expect(eq(int, elfsyms__over_budget(s), false));
	cr_expect(has_symbol(s, "a_static_function"));
	cr_expect(le(sz, elfsyms__bytes(s), bytes));
	elfsyms__free(s);

	/* One byte less: .symtab is left out, and said so; what it keeps fits. */
	s = elfsyms__load_within("/proc/self/exe", bytes - 1);
	cr_assert(s != NULL);
	cr_expect(elfsyms__over_budget(s));
	cr_expect(eq(int, has_symbol(s, "a_static_function"), false));
	cr_expect(eq(int, elfsyms__full(s), false));
	cr_expect(le(sz, elfsyms__bytes(s), bytes - 1));
	cr_expect(elfsyms__interp(s) != NULL, "the interpreter is kept whatever the budget");
	elfsyms__free(s);

	/* Not even the program headers fit. */
	errno = 0;
	cr_expect(eq(ptr, elfsyms__load_within("/proc/self/exe", 64), NULL));
	cr_expect(eq(int, errno, EFBIG));
	elfsyms__free(full);
}

Test(budget, call_sites_within_the_budget)
{
	struct callsite *full = callsite__load(LIBC), *cs;
	size_t bytes;

	cr_assert(full != NULL);
	bytes = callsite__bytes(full);
	cr_assert(bytes > 1024);
	/* The room is judged from the section headers, generously: well above its size. */
	cs = callsite__load_within(LIBC, 4 * bytes);
	cr_expect(cs != NULL);
	cr_expect(le(sz, callsite__bytes(cs), bytes));
	callsite__free(cs);
	errno = 0;
	cr_expect(eq(ptr, callsite__load_within(LIBC, bytes - 1), NULL));
	cr_expect(eq(int, errno, EFBIG));
	callsite__free(full);
}

static struct object_file *get(struct symcache *c, const char *path, uint64_t inode)
{
	struct object_file *o = symcache__get(c, 0, inode, path);

	cr_assert(o != NULL, "%s", path);
	return o;
}

/* What the file keeps with room to spare. */
static uint64_t bytes_of(const char *path)
{
	struct symcache *c = symcache__new();
	uint64_t bytes;

	cr_assert(c != NULL);
	bytes = get(c, path, 1)->bytes;
	cr_assert(bytes > 0);
	cr_expect(eq(u64, symcache__budget(c)->used, bytes));
	symcache__free(c);
	return bytes;
}

Test(budget, the_symbol_cache_refuses_past_the_total)
{
	uint64_t libc_bytes = bytes_of(LIBC), libm_bytes = bytes_of(LIBM);
	struct budget_limits l = { .per_file = 1 << 30, .total = libc_bytes + libm_bytes - 1 };
	struct symcache *c = symcache__new();
	const struct object_file *libc, *libm, *o;
	size_t over = 0;

	/* Room for libc and not for all of libm as well: libm goes without, said once. */
	symcache__set_limits(c, &l);
	libc = get(c, LIBC, 1);
	libm = get(c, LIBM, 2);
	cr_expect(eq(u64, libc->bytes, libc_bytes));
	cr_expect(eq(uint, libc->left_out, 0));
	cr_expect(ne(uint, libm->left_out, 0));
	cr_expect(eq(int, libm->over_budget, BUDGET_TOTAL));
	cr_expect(le(u64, symcache__budget(c)->used, l.total));
	cr_expect(eq(u64, symcache__budget(c)->used, libc->bytes + libm->bytes));
	/* Nothing is left: a third file gets no symbols at all. */
	l.total = symcache__budget(c)->used;
	symcache__set_limits(c, &l);
	o = get(c, "/proc/self/exe", 3);
	cr_expect(eq(ptr, o->syms, NULL));
	cr_expect(o->left_out & LEFT_OUT_SYMBOLS);
	for (o = symcache__next(c, NULL); o; o = symcache__next(c, o))
		over += o->left_out != 0;
	cr_expect(eq(sz, over, 2));
	cr_expect(eq(u64, symcache__budget(c)->files_refused, 2));
	symcache__free(c);
}

Test(budget, answers_past_the_per_file_budget_are_not_cached_but_right)
{
	uint64_t exe_bytes = bytes_of("/proc/self/exe");
	struct budget_limits l = { .per_file = exe_bytes, .total = 1 << 30 };
	struct symcache *c = symcache__new();
	struct object_file *exe;

	symcache__set_limits(c, &l);
	exe = get(c, "/proc/self/exe", 1);
	cr_assert(eq(uint, exe->left_out, 0));
	for (int i = 0; i < 3; i++) {
		cr_expect(eq(int, object_file__defines(exe, "a_static_function"), true));
		cr_expect(eq(int, object_file__defines(exe, "no_such_name"), false));
	}
	cr_expect(eq(uint, exe->left_out, LEFT_OUT_CACHE));
	cr_expect(eq(int, exe->over_budget, BUDGET_FILE));
	cr_expect(eq(u64, exe->bytes, exe_bytes));
	cr_expect(eq(u64, symcache__budget(c)->files_refused, 1));
	symcache__free(c);

	/* With room, the same answers are cached and charged. */
	c = symcache__new();
	exe = get(c, "/proc/self/exe", 1);
	cr_expect(eq(int, object_file__defines(exe, "a_static_function"), true));
	cr_expect(gt(u64, exe->bytes, exe_bytes));
	cr_expect(eq(u64, exe->cache_bytes, exe->bytes - exe_bytes));
	symcache__free(c);
}

/* An ELF header claiming, through section 0, `sections` sections and `segments` segments. */
static int crafted_headers(uint32_t sections, uint32_t segments)
{
	Elf64_Ehdr eh = { .e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64,
				       ELFDATA2LSB, EV_CURRENT },
			  .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_shoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = PN_XNUM,
			  .e_shentsize = sizeof(Elf64_Shdr) };
	Elf64_Shdr sh0 = { .sh_size = sections, .sh_info = segments };
	FILE *f = tmpfile();

	cr_assert(f != NULL);
	cr_assert(eq(sz, fwrite(&eh, sizeof(eh), 1, f), 1));
	cr_assert(eq(sz, fwrite(&sh0, sizeof(sh0), 1, f), 1));
	fflush(f);
	return dup(fileno(f)); /* the file lives while the descriptor does */
}

Test(budget, headers_claiming_a_million_sections_are_refused_before_libelf_opens_them)
{
	int libc = open(LIBC, O_RDONLY | O_CLOEXEC), many = crafted_headers(1000000, 1);
	int segments = crafted_headers(1, 1000000);
	struct unwind_table t;
	char path[64];

	cr_assert(libc >= 0 && many >= 0 && segments >= 0);
	cr_expect(eq(int, elf_headers_within(libc, 1 << 20), 0), "libc's 60-odd sections");
	cr_expect(eq(int, elf_headers_within(many, 1 << 20), -EFBIG));
	cr_expect(eq(int, elf_headers_within(many, (size_t)1000000 * ELF_SECTION_COST +
							   ELF_SEGMENT_COST), 0));
	cr_expect(eq(int, elf_headers_within(segments, 1 << 20), -EFBIG));
	/* Every loader asks first. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", many);
	errno = 0;
	cr_expect(eq(ptr, elfsyms__load_within(path, 1 << 20), NULL));
	cr_expect(eq(int, errno, EFBIG));
	errno = 0;
	cr_expect(eq(ptr, callsite__load_within(path, 1 << 20), NULL));
	cr_expect(eq(int, errno, EFBIG));
	cr_expect(eq(int, unwind_table__build_within(path, 1 << 20, &t), -EFBIG));
	close(libc);
	close(many);
	close(segments);
}
