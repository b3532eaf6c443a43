// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The JSON report's schemas: heaptap writes "heaptap": 2 (frames once, nodes naming their
 * parent) and reads 1 and 2 alike. A report of schema 1 written by an earlier heaptap
 * (report_v1.json: env_rank at two ranks under run --follow) still reads, node for node; a
 * report of schema 2 tells report and compare what the same report in schema 1 tells them;
 * an MPI job's rank takes at most 1 MB; a cut file or an unknown schema is one line.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(schema, .timeout = 120);

#define RANK_BYTES_GOAL 1000000

static const char *fixture(char *buf, size_t size)
{
	char heaptap[4096];

	/* Beside the binary under test: the source tree's tests/integration. */
	snprintf(heaptap, sizeof(heaptap), "%s", heaptap_path());
	snprintf(buf, size, "%s/tests/integration/report_v1.json", dirname(heaptap));
	return buf;
}

static int run_quiet(char *const argv[], const char *out, const char *err)
{
	return wait_status(spawn(argv, out, err), 60);
}

/* "function@library/function@library..." of a schema 1 node. */
static void path_key(json_object *node, char *buf, size_t size)
{
	json_object *path = get(node, "path");
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(path) && at < size; i++) {
		json_object *f = json_object_array_get_idx(path, i);

		at += snprintf(buf + at, size - at, "/%s@%s",
			       json_object_get_string(get(f, "function")),
			       json_object_get_string(get(f, "library")));
	}
}

/* Every node of want's tree is in got's with the same figures, and no other. */
static void expect_same_tree(json_object *got, json_object *want, const char *what)
{
	static const char *const fields[] = { "current", "min", "max", "requested", NULL };
	json_object *by_path = json_object_new_object();
	char key[8192];

	cr_assert(eq(sz, json_object_array_length(got), json_object_array_length(want)),
		  "%s: %zu nodes, the file has %zu", what, json_object_array_length(got),
		  json_object_array_length(want));
	for (size_t i = 0; i < json_object_array_length(got); i++) {
		json_object *n = json_object_array_get_idx(got, i);

		path_key(n, key, sizeof(key));
		json_object_object_add(by_path, key, json_object_get(n));
	}
	for (size_t i = 0; i < json_object_array_length(want); i++) {
		json_object *w = json_object_array_get_idx(want, i), *g = NULL;
		char label[8400];

		path_key(w, key, sizeof(key));
		snprintf(label, sizeof(label), "%s, node %s", what, key);
		cr_assert(json_object_object_get_ex(by_path, key, &g), "%s: missing", label);
		assert_fields(g, w, fields, label);
		json_object_object_foreach(get(w, "calls"), name, count)
		{
			cr_expect(eq(i64, json_object_get_int64(get(get(g, "calls"), name)),
				     json_object_get_int64(count)),
				  "%s: %s calls", label, name);
		}
	}
	json_object_put(by_path);
}

Test(schema, reads_version_1)
{
	char v1[4096], out[256], text[256], summary[256], err[256];
	json_object *want, *got, *sum, *detail;
	size_t ranks = 0;

	fixture(v1, sizeof(v1));
	want = load_json(v1);
	cr_assert(eq(int, json_object_get_int(get(want, "heaptap")), 1), "the fixture is schema 1");
	{
		char *argv[] = { (char *)heaptap_path(),
				 "report",
				 v1,
				 "--tree",
				 "--json",
				 (char *)scratch_file("tree.json", out, sizeof(out)),
				 "-o",
				 (char *)scratch_file("tree.txt", text, sizeof(text)),
				 NULL };

		cr_assert(eq(int, run_quiet(argv, NULL, scratch_file("err", err, sizeof(err))), 0),
			  "%s", slurp(err));
	}
	/* Written back in schema 2; load_json reads it in schema 1's shape. */
	got = load_json(out);
	cr_expect(eq(int, json_object_get_int(get(got, "heaptap")), 2));
	cr_assert(eq(sz, json_object_array_length(get(got, "processes")),
		     json_object_array_length(get(want, "processes"))));
	for (size_t i = 0; i < json_object_array_length(get(want, "processes")); i++) {
		json_object *w = json_object_array_get_idx(get(want, "processes"), i);
		json_object *g = json_object_array_get_idx(get(got, "processes"), i);
		static const char *const fields[] = { "current", "min", "max", "requested", NULL };
		char what[64];

		snprintf(what, sizeof(what), "process %zu", i);
		cr_expect(eq(int, json_object_get_int(get(g, "pid")),
			     json_object_get_int(get(w, "pid"))));
		assert_fields(get(g, "total"), get(w, "total"), fields, what);
		expect_same_tree(get(g, "calltree"), get(w, "calltree"), what);
	}
	json_object_put(got);

	/* The summary of the two ranks, each its total's figures. */
	{
		char *argv[] = { (char *)heaptap_path(),
				 "report",
				 v1,
				 "--json",
				 (char *)scratch_file("summary.json", summary, sizeof(summary)),
				 "-o",
				 text,
				 NULL };

		cr_assert(eq(int, run_quiet(argv, NULL, err), 0), "%s", slurp(err));
	}
	sum = load_json(summary);
	detail = get(sum, "ranks_detail");
	for (size_t i = 0; i < json_object_array_length(get(want, "processes")); i++) {
		json_object *w = json_object_array_get_idx(get(want, "processes"), i), *d;

		if (json_object_is_type(get(w, "rank"), json_type_null))
			continue;
		ranks++;
		d = find_by_int(detail, "rank", json_object_get_int(get(w, "rank")));
		cr_assert(d != NULL, "no rank %d in the summary",
			  json_object_get_int(get(w, "rank")));
		cr_expect(eq(i64, json_object_get_int64(get(d, "max")),
			     json_object_get_int64(get(get(w, "total"), "max"))));
		cr_expect(eq(i64, json_object_get_int64(get(d, "current")),
			     json_object_get_int64(get(get(w, "total"), "current"))));
	}
	cr_expect(eq(sz, json_object_array_length(detail), ranks));
	cr_expect(eq(sz, ranks, 2));
	json_object_put(sum);
	json_object_put(want);
}

/* The output of heaptap ARGS with FILE in it, less its first line (which names the file). */
static char *output_of(char *const args[], const char *file, const char *name)
{
	char *argv[16], out[256], err[256], *text, *rest;
	int n = 0;

	argv[n++] = (char *)heaptap_path();
	for (int i = 0; args[i]; i++)
		argv[n++] = strcmp(args[i], "FILE") ? args[i] : (char *)file;
	argv[n] = NULL;
	cr_assert(eq(int,
		     run_quiet(argv, scratch_file(name, out, sizeof(out)),
			       scratch_file("err", err, sizeof(err))),
		     0),
		  "heaptap %s %s: %s", args[0], file, slurp(err));
	text = slurp(out);
	rest = strdup(strchr(text, '\n') ? strchr(text, '\n') + 1 : "");
	free(text);
	return rest;
}

Test(schema, version_2_tells_what_version_1_tells)
{
	char v2[256], v1[256], truth[256], target[4096], command[16384], err[256];
	char *const views[][8] = {
		{ "report", "FILE", NULL },
		{ "report", "FILE", "--tree", NULL },
		{ "report", "FILE", "--rank", "1", NULL },
		{ "report", "FILE", "--tree", "--under", "main", "--depth", "3", NULL },
	};
	json_object *report, *processes;
	FILE *f;

	require_bpf();
	target_path("env_rank", target, sizeof(target));
	scratch_file("truth", truth, sizeof(truth));
	cr_assert(eq(int, mkdir(truth, 0755), 0));
	snprintf(command, sizeof(command),
		 "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 %s --truth-dir %s & "
		 "OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 %s --truth-dir %s; wait",
		 target, truth, target, truth);
	{
		char *argv[] = { (char *)heaptap_path(),
				 "run",
				 "--follow",
				 "--json",
				 (char *)scratch_file("v2.json", v2, sizeof(v2)),
				 "-o",
				 "/dev/null",
				 "--",
				 "sh",
				 "-c",
				 command,
				 NULL };

		cr_assert(eq(int, run_quiet(argv, NULL, scratch_file("err", err, sizeof(err))), 0),
			  "%s", slurp(err));
	}
	/* The file as written: schema 2, its nodes rows that name their parent. */
	report = json_object_from_file(v2);
	cr_assert(report != NULL);
	cr_expect(eq(int, json_object_get_int(get(report, "heaptap")), 2));
	processes = get(report, "processes");
	for (size_t i = 0; i < json_object_array_length(processes); i++) {
		json_object *tree = get(json_object_array_get_idx(processes, i), "calltree");

		cr_assert(json_object_array_length(tree) > 0, "process %zu has no tree", i);
		cr_expect(json_object_is_type(json_object_array_get_idx(tree, 0), json_type_array),
			  "a node is a row");
	}
	json_object_put(report);
	/* The same report in schema 1's shape (the tests' own reader of schema 2). */
	report = load_json(v2);
	json_object_object_add(report, "heaptap", json_object_new_int(1));
	json_object_object_del(report, "frames");
	json_object_object_del(report, "stacks");
	f = fopen(scratch_file("v1.json", v1, sizeof(v1)), "w");
	cr_assert(f != NULL);
	fprintf(f, "%s\n", json_object_to_json_string_ext(report, JSON_C_TO_STRING_PRETTY));
	fclose(f);
	json_object_put(report);

	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		char *from_v2 = output_of(views[i], v2, "out2"),
		     *from_v1 = output_of(views[i], v1, "out1");

		cr_expect(strlen(from_v2) > 100, "view %zu: %s", i, from_v2);
		cr_expect(eq(str, from_v2, from_v1), "view %zu reads the two schemas alike", i);
		free(from_v2);
		free(from_v1);
	}
}

/*
 * The job's summary and page of that report stay within the report's own size (the page
 * adds its plotting library, ~60 KB): each rank's peak sites are those that held most,
 * not every site with its whole stack.
 */
static void expect_summary_bounded(const char *report_path, off_t report_bytes)
{
	char summary[256], page[256], err[256];
	char *argv[] = { (char *)heaptap_path(), "report", (char *)report_path, "--json",
			 (char *)scratch_file("summary.json", summary, sizeof(summary)), "--html",
			 (char *)scratch_file("page.html", page, sizeof(page)), NULL };
	struct stat sum_st, page_st;

	cr_assert(eq(int, run_quiet(argv, "/dev/null", scratch_file("err", err, sizeof(err))), 0),
		  "heaptap report --json --html: %s", slurp(err));
	cr_assert(eq(int, stat(summary, &sum_st), 0));
	cr_assert(eq(int, stat(page, &page_st), 0));
	cr_expect(sum_st.st_size <= report_bytes, "the summary is %zu bytes, the report %zu",
		  (size_t)sum_st.st_size, (size_t)report_bytes);
	cr_expect(page_st.st_size <= report_bytes + (100 << 10),
		  "the page is %zu bytes, the report %zu", (size_t)page_st.st_size,
		  (size_t)report_bytes);
}

Test(schema, an_mpi_rank_within_a_megabyte, .timeout = 200)
{
	char report_path[256], dir[256], target[4096], err[256];
	char *argv[] = { (char *)heaptap_path(),
			 "run",
			 "--mpi",
			 "--json",
			 (char *)scratch_file("job.json", report_path, sizeof(report_path)),
			 "-o",
			 "/dev/null",
			 "--",
			 "mpirun",
			 "--allow-run-as-root",
			 "--oversubscribe",
			 "-np",
			 "2",
			 (char *)target_path("mpi_tree", target, sizeof(target)),
			 "--truth-dir",
			 (char *)scratch_file("truth", dir, sizeof(dir)),
			 NULL };
	json_object *report, *processes;
	struct stat st;
	size_t ranks = 0, nodes = 0;

	require_bpf();
	cr_assert(eq(int, mkdir(dir, 0755), 0));
	cr_assert(eq(int,
		     wait_status(spawn(argv, NULL, scratch_file("err", err, sizeof(err))), 150), 0),
		  "heaptap run --mpi: %s", slurp(err));
	cr_assert(eq(int, stat(report_path, &st), 0));
	report = json_object_from_file(report_path);
	cr_assert(report != NULL);
	processes = get(report, "processes");
	for (size_t i = 0; i < json_object_array_length(processes); i++) {
		json_object *p = json_object_array_get_idx(processes, i);

		if (json_object_is_type(get(p, "rank"), json_type_null))
			continue;
		ranks++;
		nodes += json_object_array_length(get(p, "calltree"));
	}
	cr_assert(eq(sz, ranks, 2));
	/* Open MPI's start alone makes thousands of paths: the trees are all there. */
	cr_expect(nodes / ranks > 1000, "%zu nodes a rank", nodes / ranks);
	cr_expect(st.st_size / (off_t)ranks <= RANK_BYTES_GOAL, "%zu bytes a rank",
		  (size_t)st.st_size / ranks);
	json_object_put(report);
	expect_summary_bounded(report_path, st.st_size);
}

/* heaptap ARGS exits 2 with one line on standard error, which has want in it. */
static void expect_refused(char *const args[], const char *want)
{
	char err[256], *argv[8], *text;
	int n = 0;

	argv[n++] = (char *)heaptap_path();
	for (int i = 0; args[i]; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	cr_expect(eq(int, run_quiet(argv, "/dev/null", scratch_file("err", err, sizeof(err))), 2),
		  "heaptap %s %s", args[0], args[1]);
	text = slurp(err);
	cr_expect(eq(int, lines_with(text, want, NULL), 1), "heaptap %s %s %s: %s", args[0],
		  args[1], args[2] ? args[2] : "", text);
	cr_expect(eq(int, lines_with(text, "", NULL), 1), "one line: %s", text);
	free(text);
}

Test(schema, a_cut_report_or_an_unknown_schema_is_one_line)
{
	char v1[4096], v2[256], cut[256], v3[256], err[256];
	char *text, *argv[] = { (char *)heaptap_path(),
				"report",
				(char *)fixture(v1, sizeof(v1)),
				"--tree",
				"--json",
				(char *)scratch_file("v2.json", v2, sizeof(v2)),
				"-o",
				"/dev/null",
				NULL };
	FILE *f;

	cr_assert(eq(int, run_quiet(argv, NULL, scratch_file("err", err, sizeof(err))), 0), "%s",
		  slurp(err));
	/* The report of schema 2 cut in the middle. */
	text = slurp(v2);
	f = fopen(scratch_file("cut.json", cut, sizeof(cut)), "w");
	cr_assert(f != NULL && strlen(text) > 1000);
	fwrite(text, 1, strlen(text) / 2, f);
	fclose(f);
	free(text);
	expect_refused((char *[]){ "report", cut, NULL }, cut);
	expect_refused((char *[]){ "report", cut, "--tree", NULL }, cut);
	expect_refused((char *[]){ "compare", cut, v2, NULL }, cut);
	/* Snapshots (top -b --json), the last one cut: the one before it is read, whole. */
	{
		char snapshots[256], *whole, *from_snapshots;
		char *const tree[] = { "report", "FILE", "--tree", NULL };

		text = slurp(v2);
		f = fopen(scratch_file("snapshots.json", snapshots, sizeof(snapshots)), "w");
		cr_assert(f != NULL);
		fprintf(f, "%s\n", text);
		fwrite(text, 1, strlen(text) / 2, f);
		fclose(f);
		free(text);
		whole = output_of(tree, v2, "whole");
		from_snapshots = output_of(tree, snapshots, "snapshots");
		cr_expect(strlen(whole) > 100);
		cr_expect(eq(str, from_snapshots, whole));
		free(whole);
		free(from_snapshots);
	}
	/* A schema this heaptap does not know. */
	f = fopen(scratch_file("v3.json", v3, sizeof(v3)), "w");
	cr_assert(f != NULL);
	fputs("{\"heaptap\": 3, \"frames\": [], \"processes\": []}\n", f);
	fclose(f);
	expect_refused((char *[]){ "report", v3, NULL }, "schema 3");
	expect_refused((char *[]){ "report", v3, "--tree", NULL }, "schema 3");
	expect_refused((char *[]){ "compare", v3, v2, NULL }, "schema 3");
}
