// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Names a user recognises, on a library built -O2 -g (tests/targets/names_c.c,
 * names_cpp.cc): under the caller rule each source function is charged its exact mallocs
 * under its source name, whatever GCC made of it (a clone, a split-off cold part, an
 * inlined helper, a tail call, a mangled C++ name); under the entry rule a program that
 * frees everything ends every group at 0, its own new and delete (a jump to free) in one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(names, .timeout = 60);

/* names.h's functions, by index, as the source names them. */
static const char *const source_names[] = {
	"mk_const",
	"mk_isra",
	"nm_cold",
	"inl_helper",
	"tail_alloc",
	"names_tail_pub",
	"ns::Pool::grab(unsigned long)",
	"ns::Pool::make_node()",
	"int* ns::make_array<int>(unsigned long)",
};
#define NR_FUNCTIONS (sizeof(source_names) / sizeof(source_names[0]))
#define ROUNDS "5"

/* The whole output of a shell command, malloc'ed. */
static char *output_of(const char *command)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len), *p = popen(command, "r");
	char buf[4096];
	size_t n;

	cr_assert(p != NULL, "cannot run %s", command);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, n, out);
	cr_assert(pclose(p) == 0, "%s failed", command);
	fclose(out);
	return text;
}

/*
 * The build made what the test is about: clones, a cold part, C++ symbols, a helper
 * inlined away, and functions ending in a jump to malloc. Else the test would pass
 * vacuously on names that were never raw.
 */
static void assert_build_made_clones(void)
{
	char lib[4096], cmd[8192], *syms, *code, *body;

	target_path("libnames.so", lib, sizeof(lib));
	snprintf(cmd, sizeof(cmd), "nm %s", lib);
	syms = output_of(cmd);
	cr_assert(strstr(syms, " mk_const.constprop.") != NULL, "no constprop clone:\n%s", syms);
	cr_assert(strstr(syms, " mk_isra.") != NULL && strstr(syms, ".isra.") != NULL, "no isra clone:\n%s", syms);
	cr_assert(strstr(syms, " nm_cold.cold") != NULL, "no cold part:\n%s", syms);
	cr_assert(strstr(syms, " _ZN2ns4Pool4grabEm") && strstr(syms, " _ZN2ns4Pool9make_nodeEv") &&
			  strstr(syms, " _ZN2ns10make_arrayIiEEPT_m"),
		  "no mangled C++ symbols:\n%s", syms);
	cr_assert(strstr(syms, "inl_helper") == NULL, "inl_helper was not inlined:\n%s", syms);
	free(syms);
	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn %s", lib);
	code = output_of(cmd);
	body = strstr(code, "<tail_alloc>:");
	cr_assert(body && strstr(body, "jmp") && strstr(body, "jmp") < strstr(body, "\n\n") &&
			  strstr(strstr(body, "jmp"), "<malloc@plt>") < strstr(body, "\n\n"),
		  "tail_alloc does not end in a jump to malloc");
	free(code);
}

/* heaptap run RULE with the --json, --stacks and text report files named after the rule. */
static char *run_names(const char *rule, const char *mode, const char *json,
		       const char *stacks, const char *text)
{
	char target[4096], out[4096], err[4096];
	char *argv[] = { (char *)heaptap_path(), "run", "-a", (char *)rule, "--json", (char *)json,
			 "--stacks", (char *)stacks, "-o", (char *)text, "--", target, ROUNDS,
			 (char *)mode, NULL };
	int status;

	target_path("names", target, sizeof(target));
	scratch_file("names.out", out, sizeof(out));
	scratch_file("heaptap.err", err, sizeof(err));
	status = wait_status(spawn(argv, out, err), 50);
	cr_assert(eq(int, status, 0), "heaptap run: %s", slurp(err));
	return slurp(out);
}

static long truth_of(const char *output, int index)
{
	char label[32];
	const char *line;

	snprintf(label, sizeof(label), "TRUTH %d ", index);
	line = strstr(output, label);
	cr_assert(line != NULL, "no truth for %d in: %s", index, output);
	return atol(line + strlen(label));
}

/* A name the linker made, not the source: a clone suffix, or a mangled name. */
static bool raw_name(const char *name)
{
	static const char *const suffixes[] = { ".constprop", ".isra", ".cold", ".part",
						".lto_priv" };

	if (!strncmp(name, "_Z", 2))
		return true;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if (strstr(name, suffixes[i]))
			return true;
	}
	return false;
}

static json_object *frame_with(json_object *stacks, const char *key, const char *value)
{
	for (size_t i = 0; i < json_object_array_length(stacks); i++) {
		json_object *frames = get(json_object_array_get_idx(stacks, i), "frames");

		for (size_t j = 0; j < json_object_array_length(frames); j++) {
			json_object *f = json_object_array_get_idx(frames, j), *v;

			if ((v = get_opt(f, key)) && json_object_is_type(v, json_type_string) &&
			    !strcmp(json_object_get_string(v), value))
				return f;
		}
	}
	return NULL;
}

static json_object *load_stacks(const char *path)
{
	json_object *stacks = json_object_new_array();
	char *text = slurp(path), *save = NULL;

	cr_assert(text != NULL, "no --stacks file");
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		json_object_array_add(stacks, json_tokener_parse(line));
	free(text);
	return stacks;
}

Test(names, caller_charges_each_source_function_its_exact_mallocs)
{
	char json[4096], stacks_path[4096], text_path[4096];
	json_object *report, *functions, *stacks, *f;
	char *output, *text;

	require_bpf();
	assert_build_made_clones();
	output = run_names("caller", "all", scratch_file("caller.json", json, sizeof(json)),
			   scratch_file("caller.stacks", stacks_path, sizeof(stacks_path)),
			   scratch_file("caller.txt", text_path, sizeof(text_path)));
	report = load_json(json);
	functions = get(json_object_array_get_idx(get(report, "processes"), 0), "functions");
	for (size_t i = 0; i < NR_FUNCTIONS; i++) {
		long want = truth_of(output, i);

		cr_assert(want > 0, "%s made no calls", source_names[i]);
		f = find_function(functions, source_names[i], "/libnames.so");
		cr_expect(f != NULL, "no function '%s' under libnames.so", source_names[i]);
		if (f)
			cr_expect(eq(i64, calls_of(f, "malloc"), want), "%s: malloc",
				  source_names[i]);
	}
	/* names_inline mallocs only through the helper inlined into it. */
	f = find_function(functions, "names_inline", "/libnames.so");
	cr_expect(f == NULL || calls_of(f, "malloc") == 0, "names_inline charged its helper's mallocs");
	text = slurp(text_path);
	for (size_t i = 0; i < json_object_array_length(functions); i++) {
		const char *name = json_object_get_string(
			get(json_object_array_get_idx(functions, i), "function"));

		cr_expect(raw_name(name) == false, "a raw name in the report: %s", name);
	}
	cr_expect(strstr(text, ".constprop") == NULL && strstr(text, ".isra") == NULL &&
			  strstr(text, "  _Z") == NULL && strstr(text, ".cold") == NULL,
		  "a raw name in the text report:\n%s", text);

	/* --stacks keeps the raw symbol beside the source name, and the source lines. */
	stacks = load_stacks(stacks_path);
	f = frame_with(stacks, "symbol", "mk_const.constprop.0");
	cr_expect(f && !strcmp(json_object_get_string(get(f, "function")), "mk_const"),
		  "no frame of symbol mk_const.constprop.0 named mk_const");
	f = frame_with(stacks, "function", "inl_helper");
	cr_expect(f && json_object_get_boolean(get(f, "inlined")) &&
			  strstr(json_object_get_string(get(f, "file")), "names_c.c") &&
			  json_object_get_int(get(f, "line")) > 0,
		  "no inlined frame inl_helper at names_c.c:LINE");
	f = frame_with(stacks, "function", "ns::Pool::grab(unsigned long)");
	cr_expect(f && !strcmp(json_object_get_string(get(f, "symbol")), "_ZN2ns4Pool4grabEm"),
		  "no frame of ns::Pool::grab with its mangled symbol");
	json_object_put(stacks);
	json_object_put(report);
	free(text);
	free(output);
}

/* One group's current balance, for the message. */
static void assert_group_at_zero(json_object *f)
{
	const char *name = json_object_get_string(get(f, "function"));
	const char *library = json_object_get_string(get(f, "library"));

	cr_expect(eq(i64, json_object_get_int64(get(f, "current")), 0), "%s / %s ends at %lld",
		  library, name, (long long)json_object_get_int64(get(f, "current")));
}

Test(names, entry_groups_of_a_program_that_frees_everything_end_at_zero)
{
	char json[4096], stacks[4096], text[4096];
	json_object *process, *functions, *program, *run_c, *run_cpp;
	long program_malloc, program_free, c_calls = 0, cpp_calls = 0;
	char *output;
	const char *line;

	require_bpf();
	assert_build_made_clones();
	output = run_names("entry", "balanced", scratch_file("entry.json", json, sizeof(json)),
			   scratch_file("entry.stacks", stacks, sizeof(stacks)),
			   scratch_file("entry.txt", text, sizeof(text)));
	line = strstr(output, "PROGRAM malloc ");
	cr_assert(line && sscanf(line, "PROGRAM malloc %ld free %ld", &program_malloc,
				 &program_free) == 2, "no PROGRAM line: %s", output);
	process = json_object_array_get_idx(get(load_json(json), "processes"), 0);
	functions = get(process, "functions");
	for (size_t i = 0; i < json_object_array_length(functions); i++) {
		json_object *f = json_object_array_get_idx(functions, i);

		/* Only the constructors the loader runs before main keep what they allocate. */
		if (!strcmp(json_object_get_string(get(f, "function")), "_dl_init"))
			continue;
		assert_group_at_zero(f);
	}
	/* The program's own new, new[], std::vector and their deletes: one group. */
	program = find_function(functions, "(program)", "/libc.so.6");
	cr_assert(program != NULL, "no libc / (program) group");
	cr_expect(eq(i64, calls_of(program, "malloc"), program_malloc), "(program): malloc");
	cr_expect(eq(i64, calls_of(program, "free"), program_free), "(program): free");
	for (int i = 0; i < (int)NR_FUNCTIONS; i++) {
		if (i <= 4)
			c_calls += truth_of(output, i);
		else if (i >= 6)
			cpp_calls += truth_of(output, i);
	}
	run_c = find_function(functions, "names_run_c", "/libnames.so");
	run_cpp = find_function(functions, "names_run_cpp", "/libnames.so");
	cr_assert(run_c && run_cpp, "no names_run_c or names_run_cpp group");
	cr_expect(eq(i64, calls_of(run_c, "malloc"), c_calls), "names_run_c: malloc");
	cr_expect(eq(i64, calls_of(run_c, "free"), c_calls), "names_run_c: free");
	cr_expect(eq(i64, calls_of(run_cpp, "malloc"), cpp_calls), "names_run_cpp: malloc");
	cr_expect(eq(i64, calls_of(run_cpp, "free"), cpp_calls), "names_run_cpp: free");
	cr_expect(eq(i64, json_object_get_int64(get(process, "incomplete_stacks")), 0),
		  "incomplete stacks");
	free(output);
}
