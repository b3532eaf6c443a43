// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap's memory stays bounded against programs built to exhaust it: a library whose
 * .eh_frame or symbol table is larger than the per-file budget, and a program that maps
 * hundreds of distinct libraries within a small total budget. Each run completes, the
 * program prints what it prints untraced, the calls that do not go through what was left
 * out are exact, the files left out are warned about once and listed in the report, the
 * stacks cut in them counted, and heaptap's peak memory follows the budget, not the files.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(budget, .timeout = 120);

/* A string field, "null" when it is null. */
static char *text_of(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return (char *)(json_object_is_type(v, json_type_string) ? json_object_get_string(v) :
								   "null");
}

/* The calls of every function in a library whose path contains part, added up. */
static struct printed_calls calls_in(json_object *functions, const char *part)
{
	struct printed_calls t = {};

	for (size_t i = 0; i < json_object_array_length(functions); i++) {
		json_object *f = json_object_array_get_idx(functions, i);

		if (!strstr(json_object_get_string(get(f, "library")), part))
			continue;
		t.malloc += calls_of(f, "malloc");
		t.calloc += calls_of(f, "calloc");
		t.realloc += calls_of(f, "realloc");
		t.free += calls_of(f, "free");
	}
	return t;
}

static void expect_truth(struct printed_calls got, struct printed_calls want, const char *what)
{
	cr_expect(eq(i64, got.malloc, want.malloc), "%s: malloc", what);
	cr_expect(eq(i64, got.calloc, want.calloc), "%s: calloc", what);
	cr_expect(eq(i64, got.realloc, want.realloc), "%s: realloc", what);
	cr_expect(eq(i64, got.free, want.free), "%s: free", what);
}

/* Run argv with its output and errors in files; its exit status and peak RSS (KiB). */
static int run(char *const argv[], const char *out, const char *err, long *maxrss_kib)
{
	pid_t pid = spawn(argv, out, err);
	struct rusage ru;
	int status;

	/*
	 * The rusage of heaptap run covers the program it ran and waited for, too: that is
	 * at most its own peak or the program's, and the program prints its own.
	 */
	for (int waited = 0; waited < 90 * 50; waited++) {
		if (wait4(pid, &status, WNOHANG, &ru) == pid) {
			if (maxrss_kib)
				*maxrss_kib = ru.ru_maxrss;
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		}
		sleep_ms(20);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, &status, 0);
	cr_assert(false, "%s did not finish in 90 s", argv[0]);
	return -1;
}

/* heaptap run BUDGETS --json JSON -o TEXT -- PROGRAM ARGS: its output, errors and report. */
struct traced {
	char *out, *err;
	json_object *report, *process;
	long maxrss_kib;
};

static struct traced trace(const char *tag, char *const budgets[], char *const program[])
{
	char json[256], text[256], out[256], err[256], name[64];
	char *argv[32];
	struct traced t;
	int argc = 0;

	argv[argc++] = (char *)heaptap_path();
	argv[argc++] = "run";
	for (int i = 0; budgets[i]; i++)
		argv[argc++] = budgets[i];
	snprintf(name, sizeof(name), "%s.json", tag);
	argv[argc++] = "--json";
	argv[argc++] = (char *)scratch_file(name, json, sizeof(json));
	snprintf(name, sizeof(name), "%s.txt", tag);
	argv[argc++] = "-o";
	argv[argc++] = (char *)scratch_file(name, text, sizeof(text));
	argv[argc++] = "--";
	for (int i = 0; program[i]; i++)
		argv[argc++] = program[i];
	argv[argc] = NULL;
	snprintf(name, sizeof(name), "%s.out", tag);
	scratch_file(name, out, sizeof(out));
	snprintf(name, sizeof(name), "%s.err", tag);
	scratch_file(name, err, sizeof(err));
	cr_assert(eq(int, run(argv, out, err, &t.maxrss_kib), 0), "heaptap: %s", slurp(err));
	t.out = slurp(out);
	t.err = slurp(err);
	t.report = load_json(json);
	cr_assert(eq(sz, json_object_array_length(get(t.report, "processes")), 1));
	t.process = json_object_array_get_idx(get(t.report, "processes"), 0);
	cr_expect(eq(i64, json_object_get_int64(get(t.process, "lost_events")), 0));
	return t;
}

static char *untraced_output(char *const program[])
{
	char out[256];

	scratch_file("untraced.out", out, sizeof(out));
	cr_assert(eq(int, run(program, out, NULL, NULL), 0), "the program fails untraced");
	return slurp(out);
}

static json_object *table_of(json_object *report, const char *suffix)
{
	json_object *tables = get(report, "unwind_tables");

	for (size_t i = 0; i < json_object_array_length(tables); i++) {
		json_object *t = json_object_array_get_idx(tables, i);
		const char *file = json_object_get_string(get(t, "file"));

		if (strlen(file) >= strlen(suffix) &&
		    !strcmp(file + strlen(file) - strlen(suffix), suffix))
			return t;
	}
	cr_assert(false, "no unwind table for %s", suffix);
	return NULL;
}

static void free_traced(struct traced *t)
{
	json_object_put(t->report);
	free(t->out);
	free(t->err);
}

Test(budget, a_large_eh_frame_over_the_per_file_table_budget)
{
	char bin[4096], *program[] = { (char *)target_path("bigeh", bin, sizeof(bin)), "100", NULL };
	char *budgets[] = { "--table-budget", "1M", NULL }, *untraced;
	struct printed_calls small, big;
	json_object *bigeh, *tables;
	struct traced t;
	long big_calls;

	require_bpf();
	untraced = untraced_output(program);
	t = trace("bigeh", budgets, program);
	cr_expect(eq(str, t.out, untraced), "traced output differs from the untraced run");
	small = printed_calls_of(untraced, "small");
	big = printed_calls_of(untraced, "big");
	big_calls = big.malloc + big.calloc + big.realloc + big.free;

	/* libbigeh.so's 1.1 MB .eh_frame is over 1M: no table, said once, in the report. */
	bigeh = table_of(t.report, "/libbigeh.so");
	cr_expect(eq(str, text_of(bigeh, "skipped"), "per-file budget"));
	cr_expect(eq(i64, json_object_get_int64(get(bigeh, "rows")), 0));
	cr_expect(eq(int, lines_with(t.err, "heaptap: warning: ", NULL), 1), "%s", t.err);
	cr_expect(eq(int, lines_with(t.err, "/libbigeh.so: unwind table over the per-file budget",
				     NULL), 1), "%s", t.err);
	/* Every other file, libc's 440 KiB of rows included, has its table. */
	tables = get(t.report, "unwind_tables");
	for (size_t i = 0; i < json_object_array_length(tables); i++) {
		json_object *e = json_object_array_get_idx(tables, i);

		if (e != bigeh)
			cr_expect(json_object_is_type(get(e, "skipped"), json_type_null), "%s skipped",
				  json_object_get_string(get(e, "file")));
	}
	cr_expect(gt(i64, json_object_get_int64(get(table_of(t.report, "/libc.so.6"), "rows")),
		     20000));
	cr_expect(eq(i64, json_object_get_int64(get(get(get(t.report, "budgets"), "tables"),
						    "files_over")), 1));

	/* Frame pointers there (it has none): each of its calls' stacks is cut in it. */
	cr_expect(eq(i64, json_object_get_int64(get(bigeh, "cut_stacks")), big_calls));
	cr_expect(eq(i64, json_object_get_int64(get(t.process, "incomplete_stacks")), big_calls));
	/* Calls that do not go through it are exact; its own are all counted. */
	expect_truth(calls_in(get(t.process, "functions"), "/libbudget_small.so"), small,
		     "small_alloc");
	cr_expect(find_function(get(t.process, "functions"), "small_alloc",
				"/libbudget_small.so") != NULL);
	expect_truth(calls_in(get(t.process, "functions"), "/libbigeh.so"), big, "big_alloc");
	free_traced(&t);
	free(untraced);
}

Test(budget, a_large_symbol_table_over_the_per_file_symbol_budget)
{
	char bin[4096], *program[] = { (char *)target_path("bigeh", bin, sizeof(bin)), "50", NULL };
	char *budgets[] = { "--symbol-budget", "2M", NULL }, *untraced;
	json_object *symbols, *files, *file = NULL, *big_alloc;
	struct traced t;

	require_bpf();
	untraced = untraced_output(program);
	t = trace("bigsyms", budgets, program);
	cr_expect(eq(str, t.out, untraced), "traced output differs from the untraced run");

	/*
	 * Its 4 MB .symtab and .strtab are over 2M: left out, said once, in the report. So is
	 * the DWARF of libc's debug file (libc6-dbg: 10 MB inflated), and nothing else.
	 */
	symbols = get(get(t.report, "budgets"), "symbols");
	files = get(symbols, "files");
	cr_expect(eq(i64, json_object_get_int64(get(symbols, "files_over")),
		     json_object_array_length(files)));
	for (size_t i = 0; i < json_object_array_length(files); i++) {
		json_object *f = json_object_array_get_idx(files, i);

		if (strstr(text_of(f, "file"), "/libbigeh.so"))
			file = f;
		else
			cr_expect(eq(str, (char *)json_object_get_string(json_object_array_get_idx(
						  get(f, "left_out"), 0)), "DWARF"),
				  "%s", json_object_to_json_string(files));
	}
	cr_assert(file != NULL, "%s", json_object_to_json_string(files));
	cr_expect(eq(str, text_of(file, "budget"), "per-file budget"));
	cr_expect(eq(str, (char *)json_object_get_string(
				  json_object_array_get_idx(get(file, "left_out"), 0)), "symbols"));
	cr_expect(le(i64, json_object_get_int64(get(symbols, "used")),
		     json_object_get_int64(get(symbols, "total"))));
	cr_expect(eq(int, lines_with(t.err, "heaptap: warning: ", NULL),
		     json_object_array_length(files)), "%s", t.err);
	cr_expect(eq(int, lines_with(t.err, "/libbigeh.so: symbols over the symbol per-file budget",
				     NULL), 1), "%s", t.err);

	/* Its exported function is still named, from .dynsym; every call is exact. */
	big_alloc = find_function(get(t.process, "functions"), "big_alloc", "/libbigeh.so");
	cr_assert(big_alloc != NULL, "big_alloc lost its name");
	expect_truth(calls_in(get(t.process, "functions"), "/libbigeh.so"),
		     printed_calls_of(untraced, "big"), "big_alloc");
	expect_truth(calls_in(get(t.process, "functions"), "/libbudget_small.so"),
		     printed_calls_of(untraced, "small"), "small_alloc");
	cr_expect(eq(i64, json_object_get_int64(get(t.process, "incomplete_stacks")), 0));
	free_traced(&t);
	free(untraced);
}

#define COPIES 300
#define CALLS_PER_COPY 5 /* many_alloc: malloc, calloc, realloc, two frees */

static void copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	struct stat st;

	cr_assert(in >= 0 && fstat(in, &st) == 0, "%s", from);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	cr_assert(out >= 0, "%s", to);
	cr_assert(eq(i64, sendfile(out, in, NULL, st.st_size), st.st_size), "copying to %s", to);
	close(in);
	close(out);
}

static long field(json_object *budget, const char *name)
{
	return json_object_get_int64(get(budget, name));
}

Test(budget, hundreds_of_libraries_within_a_small_total, .timeout = 180)
{
	char dir[256], lib[4096], path[4096], bin[4096], count[16];
	char *program[] = { (char *)target_path("manylibs", bin, sizeof(bin)), dir, count, NULL };
	char *budgets[] = { "--table-budget", "1M,4M", "--symbol-budget", "1M,8M", NULL };
	long baseline_kib, skipped = 0, cut = 0, own_kib, bound_kib;
	json_object *tables, *symbols, *unwind;
	char *untraced;
	struct traced one, t;

	require_bpf();
	scratch_file("many", dir, sizeof(dir));
	cr_assert(eq(int, mkdir(dir, 0755), 0));
	target_path("libmany.so", lib, sizeof(lib));
	for (int i = 0; i < COPIES; i++) {
		snprintf(path, sizeof(path), "%s/libmany_%d.so", dir, i);
		copy_file(lib, path);
	}

	/* What heaptap takes for the program with one library: everything but the copies. */
	snprintf(count, sizeof(count), "1");
	one = trace("many1", budgets, program);
	baseline_kib = one.maxrss_kib;
	free_traced(&one);

	snprintf(count, sizeof(count), "%d", COPIES);
	untraced = untraced_output(program);
	t = trace("many", budgets, program);
	/* Its checksum and counts; its own peak differs from run to run. */
	cr_expect(eq(int, strncmp(t.out, untraced, strstr(untraced, "maxrss") - untraced), 0),
		  "traced output differs from the untraced run:\n%s\n%s", t.out, untraced);
	expect_truth(calls_in(get(t.process, "functions"), "/libmany_"),
		     printed_calls_of(untraced, "many"), "many_alloc");

	/* The totals were spent: most copies went without a table and without symbols. */
	tables = get(get(t.report, "budgets"), "tables");
	symbols = get(get(t.report, "budgets"), "symbols");
	cr_expect(le(i64, field(tables, "used"), field(tables, "total")));
	cr_expect(le(i64, field(symbols, "used"), field(symbols, "total")));
	cr_expect(ge(i64, field(tables, "files_over"), COPIES / 2));
	cr_expect(ge(i64, field(symbols, "files_over"), COPIES / 2));
	cr_expect(eq(i64, field(symbols, "files_over"),
		     json_object_array_length(get(symbols, "files"))));
	/* One warning per file and budget, no more. */
	cr_expect(eq(i64, lines_with(t.err, "heaptap: warning: ", NULL),
		     field(tables, "files_over") + field(symbols, "files_over")),
		  "warnings:\n%s", t.err);
	for (int i = 0; i < COPIES; i += 37) {
		snprintf(path, sizeof(path), "/libmany_%d.so:", i);
		cr_expect(le(int, lines_with(t.err, "heaptap: warning: ", path), 2), "%s", path);
	}
	/* Each call through a copy without a table has its stack cut there, and counted. */
	unwind = get(t.report, "unwind_tables");
	for (size_t i = 0; i < json_object_array_length(unwind); i++) {
		json_object *e = json_object_array_get_idx(unwind, i);

		if (!strstr(json_object_get_string(get(e, "file")), "/libmany_") ||
		    json_object_is_type(get(e, "skipped"), json_type_null))
			continue;
		skipped++;
		cut += json_object_get_int64(get(e, "cut_stacks"));
	}
	cr_expect(eq(i64, skipped, field(tables, "files_over")));
	cr_expect(eq(i64, cut, skipped * CALLS_PER_COPY));

	/*
	 * Memory: what the symbols may keep, a table being built (three times its budget at
	 * most), a few KiB per file for its name and entries, and slack. Without the budget
	 * the copies' symbols alone take over 100 MiB.
	 */
	bound_kib = (field(symbols, "total") + 3 * field(tables, "per_file")) / 1024 +
		    COPIES * 16 + 16 * 1024;
	cr_assert(eq(int, sscanf(strstr(untraced, "maxrss"), "maxrss %ld", &own_kib), 1));
	cr_expect(lt(i64, t.maxrss_kib - baseline_kib, bound_kib),
		  "heaptap's peak grew by %ld KiB with %d libraries (bound %ld KiB; the program's "
		  "own peak: %ld KiB)", t.maxrss_kib - baseline_kib, COPIES, bound_kib, own_kib);

	for (int i = 0; i < COPIES; i++) {
		snprintf(path, sizeof(path), "%s/libmany_%d.so", dir, i);
		unlink(path);
	}
	rmdir(dir);
	free_traced(&t);
	free(untraced);
}
