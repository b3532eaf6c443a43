// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * report --html's data: escaped data blocks, the ranks' call trees merged, their series on
 * one time grid.
 */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <json-c/json.h>
#include "html_page.h"
#include "job_tree.h"
#include "report_html.h"

TestSuite(report_html);

/* The JSON inside <script type="application/json" id="ID">...</script> of page, parsed. */
static json_object *data_block(const char *page, const char *id)
{
	char open[128];
	const char *start, *end;
	char *text;
	json_object *o;

	snprintf(open, sizeof(open), "<script type=\"application/json\" id=\"%s\">", id);
	start = strstr(page, open);
	cr_assert(start != NULL, "no data block %s", id);
	start += strlen(open);
	end = strstr(start, "</script>");
	cr_assert(end != NULL);
	text = strndup(start, end - start);
	cr_expect(strchr(text, '<') == NULL, "a < in the data block: %s", text);
	o = json_tokener_parse(text);
	cr_assert(o != NULL, "the data block is not JSON: %s", text);
	free(text);
	return o;
}

Test(report_html, no_name_can_end_the_data_block)
{
	const char *name = "f</script><!--<script>x<int>&\"";
	json_object *o = json_object_new_object(), *back;
	char *page = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&page, &len);

	json_object_object_add(o, "function", json_object_new_string(name));
	html_page__data(f, "d", o);
	fclose(f);
	back = data_block(page, "d");
	cr_expect(eq(str, (char *)json_object_get_string(json_object_object_get(back, "function")),
		     (char *)name));
	/* One element: the only </script> is its own end. */
	cr_expect(eq(ptr, strstr(page, "</script>"), strrchr(page, '<')));
	json_object_put(back);
	json_object_put(o);
	free(page);
}

/* A process's calltree[] node: path of the given functions (library "lib"), max. */
static json_object *node(long long max, int depth, const char *const *path)
{
	json_object *n = json_object_new_object(), *p = json_object_new_array();

	for (int i = 0; i < depth; i++) {
		json_object *fr = json_object_new_object();

		json_object_object_add(fr, "function", json_object_new_string(path[i]));
		json_object_object_add(fr, "library", json_object_new_string("lib"));
		json_object_array_add(p, fr);
	}
	json_object_object_add(n, "path", p);
	json_object_object_add(n, "max", json_object_new_int64(max));
	return n;
}

static json_object *tree_of(long long main_max, long long a_max, long long b_max)
{
	static const char *const a[] = { "main", "a" }, *const b[] = { "main", "b" };
	json_object *t = json_object_new_array();

	json_object_array_add(t, node(main_max, 1, a));
	if (a_max >= 0)
		json_object_array_add(t, node(a_max, 2, a));
	if (b_max >= 0)
		json_object_array_add(t, node(b_max, 2, b));
	return t;
}

Test(report_html, the_ranks_trees_merge_by_path)
{
	struct job_tree *t = job_tree__new();
	json_object *trees[] = { tree_of(150, 100, 50), tree_of(300, 300, -1),
				 tree_of(200, 200, -1) };
	const int ranks[] = { 0, 5, 2 };
	json_object *out, *nodes, *row;

	for (int i = 0; i < 3; i++)
		cr_assert(eq(int, job_tree__add(t, trees[i], ranks[i]), 0));
	out = job_tree__json(t);
	nodes = json_object_object_get(out, "nodes");
	cr_assert(eq(sz, json_object_array_length(nodes), 3), "main, main>a, main>b");
	/* [parent, function, library, min, median, max, rank_of_max, ranks] */
	row = json_object_array_get_idx(nodes, 0);
	cr_expect(eq(int, json_object_get_int(json_object_array_get_idx(row, 0)), -1));
	cr_expect(eq(str, (char *)json_object_get_string(json_object_array_get_idx(row, 1)),
		     "main"));
	row = json_object_array_get_idx(nodes, 1);
	cr_expect(eq(int, json_object_get_int(json_object_array_get_idx(row, 0)), 0),
		  "a's parent is main");
	cr_expect(eq(str, (char *)json_object_get_string(json_object_array_get_idx(row, 1)), "a"));
	cr_expect(eq(i64, json_object_get_int64(json_object_array_get_idx(row, 3)), 100));
	cr_expect(eq(dbl, json_object_get_double(json_object_array_get_idx(row, 4)), 200.0));
	cr_expect(eq(i64, json_object_get_int64(json_object_array_get_idx(row, 5)), 300));
	cr_expect(eq(int, json_object_get_int(json_object_array_get_idx(row, 6)), 5));
	cr_expect(eq(int, json_object_get_int(json_object_array_get_idx(row, 7)), 3));
	row = json_object_array_get_idx(nodes, 2);
	cr_expect(eq(str, (char *)json_object_get_string(json_object_array_get_idx(row, 1)), "b"));
	cr_expect(eq(int, json_object_get_int(json_object_array_get_idx(row, 7)), 1),
		  "only rank 0 called b");
	cr_expect(eq(sz, json_object_array_length(json_object_object_get(out, "libraries")), 1));
	json_object_put(out);
	for (int i = 0; i < 3; i++)
		json_object_put(trees[i]);
	job_tree__free(t);
}

Test(report_html, every_rank_on_one_time_grid)
{
	const struct job_sample s1[] = { { 0, 10, 10 }, { 1, 20, 20 }, { 2, 30, 30 } };
	const struct job_sample s0[] = { { 0.5, 7, 7 }, { 1.5, 9, 9 } };
	/* Added out of order: the page lists them by rank. */
	const struct job_page_rank ranks_in[] = {
		{ .rank = 1, .pid = 11, .text = "one", .samples = s1, .nr_samples = 3 },
		{ .rank = 0, .pid = 10, .text = "zero", .samples = s0, .nr_samples = 2 },
	};
	struct job_page *p = job_page__new(true);
	json_object *data, *time, *series, *ranks, *texts, *s_0, *s_1;
	const double want_t[] = { 0, 0.5, 1, 1.5, 2 };
	char *page = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&page, &len);

	for (int i = 0; i < 2; i++)
		cr_assert(eq(int, job_page__add_rank(p, &ranks_in[i]), 0));
	job_page__write(f, p, "t", NULL);
	fclose(f);
	data = data_block(page, "heaptap-job");
	texts = data_block(page, "heaptap-texts");
	time = json_object_object_get(data, "time");
	series = json_object_object_get(data, "series");
	ranks = json_object_object_get(data, "ranks");
	cr_assert(eq(sz, json_object_array_length(ranks), 2));
	cr_expect(eq(int, json_object_get_int(json_object_object_get(
				  json_object_array_get_idx(ranks, 0), "rank")), 0), "by rank");
	cr_expect(eq(str, (char *)json_object_get_string(json_object_array_get_idx(texts, 0)),
		     "zero"));
	cr_assert(eq(sz, json_object_array_length(time), 5));
	for (int i = 0; i < 5; i++)
		cr_expect(eq(dbl, json_object_get_double(json_object_array_get_idx(time, i)),
			     want_t[i]));
	s_0 = json_object_array_get_idx(series, 0);
	s_1 = json_object_array_get_idx(series, 1);
	/* Rank 0: nothing before its first sample nor after its last; its last value between. */
	cr_expect(json_object_array_get_idx(s_0, 0) == NULL);
	cr_expect(eq(i64, json_object_get_int64(json_object_array_get_idx(s_0, 2)), 7));
	cr_expect(eq(i64, json_object_get_int64(json_object_array_get_idx(s_0, 3)), 9));
	cr_expect(json_object_array_get_idx(s_0, 4) == NULL);
	cr_expect(eq(i64, json_object_get_int64(json_object_array_get_idx(s_1, 1)), 10));
	cr_expect(eq(i64, json_object_get_int64(json_object_array_get_idx(s_1, 4)), 30));
	json_object_put(data);
	json_object_put(texts);
	job_page__free(p);
	free(page);
}

Test(report_html, a_coarser_grid_keeps_the_peaks)
{
	struct job_sample *samples = calloc(1000, sizeof(*samples));
	struct job_page_rank r = { .rank = 0, .text = "", .samples = samples, .nr_samples = 1000 };
	struct job_page *p = job_page__new(true);
	json_object *data, *time, *series;
	long long top = 0;
	char *page = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&page, &len);

	/* 1,000 samples, more than the page's points: a one-sample spike among them. */
	for (int i = 0; i < 1000; i++)
		samples[i] = (struct job_sample){ .t = 0.01 * i, .current = i == 501 ? 1000000 : 10 };
	cr_assert(eq(int, job_page__add_rank(p, &r), 0));
	job_page__write(f, p, "t", NULL);
	fclose(f);
	data = data_block(page, "heaptap-job");
	time = json_object_object_get(data, "time");
	series = json_object_array_get_idx(json_object_object_get(data, "series"), 0);
	cr_assert(eq(sz, json_object_array_length(time), JOB_PAGE_MAX_POINTS));
	for (size_t i = 0; i < JOB_PAGE_MAX_POINTS; i++) {
		long long v = json_object_get_int64(json_object_array_get_idx(series, i));

		if (v > top)
			top = v;
	}
	cr_expect(eq(i64, top, 1000000), "the spike is kept");
	cr_expect(eq(i64, json_object_get_int64(json_object_array_get_idx(series,
			  JOB_PAGE_MAX_POINTS - 1)), 10), "the last sample is the last point");
	json_object_put(data);
	job_page__free(p);
	free(samples);
	free(page);
}
