// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The call tree and heaptap compare on an MPI job at 1, 2 and 4 processes: below app_init
 * each rank's nodes equal what the rank recorded, and compare tells the functions that grow
 * with the process count (by the bytes per process the program says) from the one that
 * does not. Then heaptap report prints those trees back from the JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(calltree, .timeout = 300);

static const int sizes[] = { 1, 2, 4 };

/* Does the node's path end in main, then the truth's "app_init/..." path? */
static bool path_is(json_object *node, const char *truth_path)
{
	json_object *path = get(node, "path");
	size_t n = json_object_array_length(path), i;
	char want[256], *save = NULL, *name;

	snprintf(want, sizeof(want), "%s", truth_path);
	for (i = 0; i < n; i++) {
		json_object *f = json_object_array_get_idx(path, i);

		if (!strcmp(json_object_get_string(get(f, "function")), "app_init"))
			break;
	}
	if (i == 0 || i == n ||
	    strcmp(json_object_get_string(get(json_object_array_get_idx(path, i - 1),
					      "function")), "main"))
		return false;
	for (name = strtok_r(want, "/", &save); name; name = strtok_r(NULL, "/", &save), i++) {
		if (i >= n || strcmp(json_object_get_string(get(json_object_array_get_idx(path, i),
								  "function")), name))
			return false;
	}
	return i == n;
}

static long long all_calls(json_object *node)
{
	long long n = 0;

	json_object_object_foreach(get(node, "calls"), name, count) {
		(void)name;
		n += json_object_get_int64(count);
	}
	return n;
}

static void expect_rank_matches_truth(json_object *process, const char *truth_dir, int np)
{
	static const char *const fields[] = { "current", "min", "max", "requested", NULL };
	int rank = json_object_get_int(get(process, "rank"));
	json_object *tree = get(process, "calltree"), *truth, *nodes;
	char path[512], what[256];

	snprintf(path, sizeof(path), "%s/truth-%d.json", truth_dir, rank);
	truth = load_json(path);
	cr_expect(eq(int, json_object_get_int(get(truth, "world_size")), np));
	nodes = get(truth, "nodes");
	for (size_t k = 0; k < json_object_array_length(nodes); k++) {
		json_object *want = json_object_array_get_idx(nodes, k), *got = NULL;
		const char *name = json_object_get_string(get(want, "path"));
		size_t found = 0;

		for (size_t i = 0; i < json_object_array_length(tree); i++) {
			if (path_is(json_object_array_get_idx(tree, i), name)) {
				got = json_object_array_get_idx(tree, i);
				found++;
			}
		}
		snprintf(what, sizeof(what), "np %d rank %d, main/%s", np, rank, name);
		cr_assert(eq(sz, found, 1), "%s: %zu nodes in the tree", what, found);
		assert_balance(got, want, fields, what);
		cr_expect(eq(i64, all_calls(got), json_object_get_int64(get(get(want, "calls"),
									      "malloc")) +
							 json_object_get_int64(get(get(want, "calls"),
										   "free"))),
			  "%s: calls of other kinds", what);
	}
	json_object_put(truth);
}

static int run_quiet(char *const argv[], const char *out, const char *err)
{
	return wait_status(spawn(argv, out, err), 60);
}

static json_object *compare_row(json_object *functions, const char *last)
{
	for (size_t i = 0; i < json_object_array_length(functions); i++) {
		json_object *f = json_object_array_get_idx(functions, i);
		json_object *path = get(f, "path");

		if (json_object_array_length(path) == 2 &&
		    !strcmp(json_object_get_string(get(f, "function")), last))
			return f;
	}
	return NULL;
}

Test(calltree, mpi_init_scaling)
{
	char reports[3][256], dirs[3][256], target[4096], cmp[256], html[256], out[256],
		err[256], name[64];
	long long entry_usable = 0;
	json_object *c, *functions, *row;

	require_bpf();
	target_path("mpi_tree", target, sizeof(target));
	for (int k = 0; k < 3; k++) {
		char np[8];
		json_object *report, *processes;
		int ranks = 0;

		snprintf(np, sizeof(np), "%d", sizes[k]);
		snprintf(name, sizeof(name), "np-%d.json", sizes[k]);
		scratch_file(name, reports[k], sizeof(reports[k]));
		snprintf(name, sizeof(name), "truth-np-%d", sizes[k]);
		scratch_file(name, dirs[k], sizeof(dirs[k]));
		cr_assert(eq(int, mkdir(dirs[k], 0755), 0));
		{
			char *argv[] = { (char *)heaptap_path(), "run", "--mpi", "--json", reports[k],
					 "-o", "/dev/null", "--", "mpirun", "--allow-run-as-root",
					 "--oversubscribe", "-np", np, target, "--truth-dir",
					 dirs[k], NULL };
			int status = wait_status(spawn(argv, NULL, scratch_file("run.err", err,
										sizeof(err))),
						 150);

			cr_assert(eq(int, status, 0), "heaptap run --mpi, np %d: %s", sizes[k],
				  slurp(err));
		}
		report = load_json(reports[k]);
		processes = get(report, "processes");
		for (size_t i = 0; i < json_object_array_length(processes); i++) {
			json_object *p = json_object_array_get_idx(processes, i);

			if (json_object_is_type(get(p, "rank"), json_type_null))
				continue;
			ranks++;
			expect_rank_matches_truth(p, dirs[k], sizes[k]);
		}
		cr_expect(eq(int, ranks, sizes[k]), "np %d: %d ranks in the report", sizes[k], ranks);
		json_object_put(report);
	}
	{
		char truth[512];
		json_object *t;

		snprintf(truth, sizeof(truth), "%s/truth-0.json", dirs[0]);
		t = load_json(truth);
		entry_usable = json_object_get_int64(get(t, "peer_entry_usable"));
		json_object_put(t);
	}

	scratch_file("compare.json", cmp, sizeof(cmp));
	scratch_file("compare.html", html, sizeof(html));
	scratch_file("compare.txt", out, sizeof(out));
	{
		char *argv[] = { (char *)heaptap_path(), "compare", reports[0], reports[1],
				 reports[2], "--under", "app_init", "--depth", "2", "--json", cmp,
				 "--html", html, NULL };

		cr_assert(eq(int, run_quiet(argv, out, err), 0), "compare: %s", slurp(err));
	}
	c = load_json(cmp);
	cr_expect(eq(int, json_object_get_int(get(c, "heaptap_compare")), 1));
	functions = get(c, "functions");
	row = compare_row(functions, "peer_table");
	cr_assert(row != NULL, "no app_init > peer_table in the comparison");
	cr_expect(json_object_get_boolean(get(row, "grows")), "the table per peer grows");
	cr_expect(json_object_get_double(get(row, "bytes_per_process")) == (double)entry_usable,
		  "peer_table: %.3f bytes per process, the program allocates %lld per peer",
		  json_object_get_double(get(row, "bytes_per_process")), entry_usable);
	cr_expect(eq(sz, json_object_array_length(get(row, "points")), 3));
	row = compare_row(functions, "peer_matrix");
	cr_assert(row != NULL, "no app_init > peer_matrix in the comparison");
	cr_expect(json_object_get_boolean(get(row, "grows")), "the matrix of peers grows");
	row = compare_row(functions, "fixed_setup");
	cr_assert(row != NULL, "no app_init > fixed_setup in the comparison");
	cr_expect(json_object_get_boolean(get(row, "grows")) == 0, "the constant part does not "
		  "grow");
	cr_expect(json_object_get_double(get(row, "bytes_per_process")) == 0);
	json_object_put(c);
	cr_expect(count_text(html, "<div class=\"plot\"") == 3, "one plot per growing function (app_init, "
		  "peer_table, peer_matrix)");
	cr_expect(count_text(out, "peer_table") == 1, "the text table: %s", slurp(out));

	/* heaptap report: the tree back from the JSON, below app_init, two levels. */
	{
		char *argv[] = { (char *)heaptap_path(), "report", reports[1], "--tree", "--under",
				 "app_init", "--depth", "2", NULL };
		char *text;

		cr_assert(eq(int, run_quiet(argv, out, err), 0), "report: %s", slurp(err));
		text = slurp(out);
		cr_expect(eq(int, lines_with(text, "  app_init  (mpi_tree)", NULL), 2), "%s", text);
		cr_expect(eq(int, lines_with(text, "    peer_table  (mpi_tree)", NULL), 2), "%s",
			  text);
		cr_expect(eq(int, lines_with(text, " main  (", NULL), 0), "--under starts below main");
		free(text);
	}
}

Test(calltree, report_of_a_file_that_is_not_a_report)
{
	char bad[256], err[256];
	char *argv[] = { (char *)heaptap_path(), "report", bad, NULL };
	FILE *f = fopen(scratch_file("bad.json", bad, sizeof(bad)), "w");
	char *text;

	cr_assert(f != NULL);
	fputs("{\"hello\": 1}\n", f);
	fclose(f);
	cr_expect(eq(int, run_quiet(argv, NULL, scratch_file("err", err, sizeof(err))), 2));
	text = slurp(err);
	cr_expect(eq(int, lines_with(text, "is not a heaptap report", NULL), 1), "%s", text);
	cr_expect(eq(int, lines_with(text, "", NULL), 1), "one line: %s", text);
	free(text);
}
