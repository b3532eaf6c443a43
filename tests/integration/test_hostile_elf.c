// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A program whose own library comes in crafted copies (tests/targets/corrupt_elf.c): a
 * truncated .eh_frame, a CIE pointer loop, an FDE covering the whole address space, an
 * unterminated .strtab, a .symtab larger than the file. Traced, it runs to completion and
 * prints what it prints untraced; every allocator call it counts itself is in the report,
 * under the right library; heaptap warns once for each crafted copy and never for the
 * intact one; the stacks cut in the copies without usable CFI are counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(hostile_elf, .timeout = 120);

/* Crafted copies, as targets.mk names them; the intact library goes first. */
static const char *const kinds[] = {
	"good",		      "truncated-eh-frame",  "cie-loop",
	"whole-address-space", "unterminated-strtab", "sizes-beyond-file",
};
#define NR_KINDS (sizeof(kinds) / sizeof(kinds[0]))

/* The program with every copy of its library, untraced then traced: its output both times. */
static void run_both(char paths[][4096], char **untraced, char **traced, const char *json,
		     const char *err)
{
	char bin[4096], plain[256], out[256], text[256];
	char *plain_argv[NR_KINDS + 2], *argv[NR_KINDS + 12];
	int argc = 0;

	plain_argv[0] = (char *)target_path("hostile", bin, sizeof(bin));
	for (size_t i = 0; i < NR_KINDS; i++)
		plain_argv[i + 1] = paths[i];
	plain_argv[NR_KINDS + 1] = NULL;
	scratch_file("untraced.txt", plain, sizeof(plain));
	cr_assert(eq(int, wait_status(spawn(plain_argv, plain, NULL), 60), 0),
		  "the program fails even untraced");

	argv[argc++] = (char *)heaptap_path();
	argv[argc++] = "run";
	argv[argc++] = "-a";
	argv[argc++] = "caller"; /* each call is charged to hostile_alloc, whatever its stack */
	argv[argc++] = "--json";
	argv[argc++] = (char *)json;
	argv[argc++] = "-o";
	argv[argc++] = (char *)scratch_file("report.txt", text, sizeof(text));
	argv[argc++] = "--";
	for (size_t i = 0; i < NR_KINDS + 1; i++)
		argv[argc++] = plain_argv[i];
	argv[argc] = NULL;
	scratch_file("traced.txt", out, sizeof(out));
	cr_assert(eq(int, wait_status(spawn(argv, out, err), 90), 0), "heaptap: %s", slurp(err));
	*untraced = slurp(plain);
	*traced = slurp(out);
	cr_assert(untraced[0] != NULL && traced[0] != NULL, "outputs missing");
}

Test(hostile_elf, crafted_sections_in_the_programs_own_library)
{
	char paths[NR_KINDS][4096], name[128], json[256], err[256], *untraced, *traced, *said;
	json_object *report, *process, *functions;
	long cut = 0, maybe_cut = 0, incomplete;

	require_bpf();
	for (size_t i = 0; i < NR_KINDS; i++) {
		snprintf(name, sizeof(name), "libhostile_%s.so", kinds[i]);
		target_path(name, paths[i], sizeof(paths[i]));
	}
	run_both(paths, &untraced, &traced, scratch_file("report.json", json, sizeof(json)),
		 scratch_file("err.txt", err, sizeof(err)));

	/* The run completed, and the program computed what it computes untraced. */
	cr_expect(strstr(untraced, "checksum ") != NULL);
	cr_expect(eq(str, traced, untraced), "traced output differs from the untraced run");

	report = load_json(json);
	process = json_object_array_get_idx(get(report, "processes"), 0);
	functions = get(process, "functions");
	cr_expect(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));
	said = slurp(err);
	for (size_t i = 0; i < NR_KINDS; i++) {
		struct printed_calls t = printed_calls_of(untraced, paths[i]);
		json_object *f;

		snprintf(name, sizeof(name), "/libhostile_%s.so", kinds[i]);
		f = find_function(functions, "hostile_alloc", name);
		cr_assert(f != NULL, "no hostile_alloc in %s in the report (loader events not held: "
			  "%lld; heaptap said: %s)", name,
			  (long long)json_object_get_int64(get(process, "holds_skipped")), said);
		cr_expect(eq(i64, calls_of(f, "malloc"), t.malloc), "%s: malloc", name);
		cr_expect(eq(i64, calls_of(f, "calloc"), t.calloc), "%s: calloc", name);
		cr_expect(eq(i64, calls_of(f, "realloc"), t.realloc), "%s: realloc", name);
		cr_expect(eq(i64, calls_of(f, "free"), t.free), "%s: free", name);

		/* One warning per crafted copy, naming it; none for the intact library. */
		cr_expect(eq(int, lines_with(said, "heaptap: warning: ", paths[i]), i == 0 ? 0 : 1),
			  "warnings about %s in: %s", name, said);

		/* Without usable CFI, nothing unwinds past hostile_alloc (built without rbp). */
		if (!strcmp(kinds[i], "truncated-eh-frame") || !strcmp(kinds[i], "cie-loop"))
			cut += t.malloc + t.calloc + t.realloc + t.free;
		/* Its first FDE moved to 0 and grown: the rows of the code it covered are wrong. */
		if (!strcmp(kinds[i], "whole-address-space"))
			maybe_cut += t.malloc + t.calloc + t.realloc + t.free;
	}
	cr_expect(eq(int, lines_with(said, "heaptap: warning: ", NULL), NR_KINDS - 1),
		  "warnings: %s", said);

	/*
	 * Stacks cut in the copies without usable CFI are counted, and only those: the intact
	 * library and those whose CFI is sound unwind whole.
	 */
	incomplete = json_object_get_int64(get(process, "incomplete_stacks"));
	cr_expect(incomplete >= cut && incomplete <= cut + maybe_cut,
		  "incomplete stacks %ld, expected %ld to %ld", incomplete, cut, cut + maybe_cut);
	json_object_put(report);
	free(said);
	free(untraced);
	free(traced);
}
