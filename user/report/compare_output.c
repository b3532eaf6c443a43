// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap compare's outputs: a text table, JSON, and a web page with a plot per growth. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "compare.h"
#include "html_page.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void print_path(FILE *out, const struct compare_row *r)
{
	for (size_t i = 0; i < r->depth; i++)
		fprintf(out, "%s%s", i ? " > " : "", r->functions[i]);
	fprintf(out, " (%s)", base_name(r->libraries[r->depth - 1]));
}

static void print_heading(FILE *out, const struct comparison *c)
{
	fprintf(out, "heaptap compare: %zu process counts (", c->nr_sizes);
	for (size_t i = 0; i < c->nr_sizes; i++)
		fprintf(out, "%s%d", i ? ", " : "", c->world_size[i]);
	fprintf(out, "), below %s, %u level%s.\n", c->under ? c->under : "each entry function",
		c->depth, c->depth == 1 ? "" : "s");
	if (!c->nr)
		fprintf(out, "No call below %s in any report.\n",
			c->under ? c->under : "an entry function");
}

void comparison__text(FILE *out, const struct comparison *c)
{
	print_heading(out, c);
	if (c->nr_sampled)
		fprintf(out, "Sampled by bytes (--sample-bytes %" PRIu64 ") in %zu of the processes: "
			     "their maxima are estimates, and so are the lines through them.\n",
			c->sample_bytes, c->nr_sampled);
	fprintf(out, "Each count: the median over ranks of a function's max (usable bytes, "
		     "inclusive); BYTES/PROC: b of the least-squares line max = a + b*p.\n");
	fprintf(out, "%-5s %12s %5s", "GROWS", "BYTES/PROC", "R2");
	for (size_t i = 0; i < c->nr_sizes; i++) {
		char head[16];

		snprintf(head, sizeof(head), "p=%d", c->world_size[i]);
		fprintf(out, " %11s", head);
	}
	fprintf(out, "  FUNCTION (LIBRARY)\n");
	for (size_t k = 0; k < c->nr; k++) {
		const struct compare_row *r = &c->rows[k];

		fprintf(out, "%-5s %12.1f %5.2f", r->grows ? "yes" : "no", r->fit.b, r->fit.r2);
		for (size_t i = 0; i < c->nr_sizes; i++)
			fprintf(out, " %11.0f", r->points[i].max);
		fputs("  ", out);
		print_path(out, r);
		fputc('\n', out);
	}
	fflush(out);
}

static json_object *row_json(const struct compare_row *r, size_t nr_sizes)
{
	json_object *o = json_object_new_object(), *path = json_object_new_array();
	json_object *points = json_object_new_array();

	for (size_t i = 0; i < r->depth; i++) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "function", json_object_new_string(r->functions[i]));
		json_object_object_add(f, "library", json_object_new_string(r->libraries[i]));
		json_object_array_add(path, f);
	}
	json_object_object_add(o, "path", path);
	json_object_object_add(o, "function", json_object_new_string(r->functions[r->depth - 1]));
	json_object_object_add(o, "library", json_object_new_string(r->libraries[r->depth - 1]));
	for (size_t i = 0; i < nr_sizes; i++) {
		const struct compare_point *p = &r->points[i];
		json_object *q = json_object_new_object();

		json_object_object_add(q, "world_size", json_object_new_int(p->world_size));
		json_object_object_add(q, "ranks", json_object_new_int64(p->ranks));
		json_object_object_add(q, "current", json_object_new_double(p->current));
		json_object_object_add(q, "current_min", json_object_new_double(p->current_min));
		json_object_object_add(q, "current_max", json_object_new_double(p->current_max));
		json_object_object_add(q, "max", json_object_new_double(p->max));
		json_object_object_add(q, "max_min", json_object_new_double(p->max_min));
		json_object_object_add(q, "max_max", json_object_new_double(p->max_max));
		json_object_array_add(points, q);
	}
	json_object_object_add(o, "points", points);
	json_object_object_add(o, "bytes_per_process", json_object_new_double(r->fit.b));
	json_object_object_add(o, "intercept", json_object_new_double(r->fit.a));
	json_object_object_add(o, "r2", json_object_new_double(r->fit.r2));
	json_object_object_add(o, "grows", json_object_new_boolean(r->grows));
	return o;
}

void comparison__json(FILE *out, const struct comparison *c)
{
	json_object *root = json_object_new_object(), *functions = json_object_new_array();

	json_object_object_add(root, "heaptap_compare", json_object_new_int(1));
	json_object_object_add(root, "by", json_object_new_string("world_size"));
	json_object_object_add(root, "value", json_object_new_string("max"));
	json_object_object_add(root, "under", c->under ? json_object_new_string(c->under) : NULL);
	json_object_object_add(root, "depth", json_object_new_int(c->depth));
	json_object_object_add(root, "growth_share", json_object_new_double(COMPARE_GROWTH_SHARE));
	json_object_object_add(root, "min_r2", json_object_new_double(COMPARE_MIN_R2));
	if (c->nr_sampled) {
		json_object *sampled = json_object_new_object();

		json_object_object_add(sampled, "bytes", json_object_new_uint64(c->sample_bytes));
		json_object_object_add(sampled, "processes", json_object_new_uint64(c->nr_sampled));
		json_object_object_add(root, "sampled", sampled);
	} else {
		json_object_object_add(root, "sampled", NULL);
	}
	for (size_t k = 0; k < c->nr; k++)
		json_object_array_add(functions, row_json(&c->rows[k], c->nr_sizes));
	json_object_object_add(root, "functions", functions);
	fprintf(out, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	fflush(out);
}

static void html_path(FILE *out, const struct compare_row *r)
{
	for (size_t i = 0; i < r->depth; i++) {
		fputs(i ? " &gt; " : "", out);
		html_text(out, r->functions[i]);
	}
	fputs(" (", out);
	html_text(out, base_name(r->libraries[r->depth - 1]));
	fputc(')', out);
}

/*
 * The page (html_page.h): a plot per growing function, drawn by tools/report/compare.js
 * from the data block (the JSON output's rows): max against p, each count's median over
 * the ranks, their range, and the fitted line.
 */
void comparison__html(FILE *out, const struct comparison *c)
{
	json_object *rows = json_object_new_array();

	html_page__begin(out, "heaptap compare");
	fputs("<h1>heaptap compare</h1>\n<p>", out);
	print_heading(out, c);
	fprintf(out, "A function grows when b&middot;p at the largest p is at least %.0f%% of its "
		     "max there and R&sup2; &ge; %.2f. Values: the median over ranks of max "
		     "(usable bytes, inclusive). In each plot the dots are those medians, the "
		     "band spans the ranks' smallest to largest max, the dashed line is the "
		     "fitted max = a + b&middot;p.</p>\n",
		COMPARE_GROWTH_SHARE * 100, COMPARE_MIN_R2);
	for (size_t k = 0; k < c->nr && c->rows[k].grows; k++) {
		const struct compare_row *r = &c->rows[k];

		json_object_array_add(rows, row_json(r, c->nr_sizes));
		fputs("<h3>", out);
		html_path(out, r);
		fprintf(out, "</h3>\n<p>%.1f bytes per process, R&sup2; %.3f</p>\n"
			     "<div class=\"plot\" data-row=\"%zu\"></div>\n",
			r->fit.b, r->fit.r2, k);
	}
	fprintf(out, "<h2>All functions</h2>\n<table>\n<tr><th>grows</th><th>bytes/process</th>"
		     "<th>R&sup2;</th>");
	for (size_t i = 0; i < c->nr_sizes; i++)
		fprintf(out, "<th>p=%d</th>", c->world_size[i]);
	fprintf(out, "<th class=\"t\">function</th></tr>\n");
	for (size_t k = 0; k < c->nr; k++) {
		const struct compare_row *r = &c->rows[k];

		fprintf(out, "<tr><td>%s</td><td>%.1f</td><td>%.2f</td>", r->grows ? "yes" : "no",
			r->fit.b, r->fit.r2);
		for (size_t i = 0; i < c->nr_sizes; i++)
			fprintf(out, "<td>%.0f</td>", r->points[i].max);
		fputs("<td class=\"t\">", out);
		html_path(out, r);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	html_page__data(out, "heaptap-compare", rows);
	json_object_put(rows);
	html_page__end(out, HTML_SCRIPT_COMPARE);
}
