// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap compare's outputs: a text table, JSON, and a web page with a plot per growth. */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "compare.h"

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
	for (size_t k = 0; k < c->nr; k++)
		json_object_array_add(functions, row_json(&c->rows[k], c->nr_sizes));
	json_object_object_add(root, "functions", functions);
	fprintf(out, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	fflush(out);
}

/* Names may hold C++'s < > &. */
static void html_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
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

/* max against p: each count's median (dot), the ranks' range (bar), and the line. */
static void plot(FILE *out, const struct compare_row *r, size_t n)
{
	const double w = 360, h = 180, left = 70, bottom = 30, top = 10, right = 10;
	double p_max = r->points[n - 1].world_size, y_max = 0, y_min = 0;

#define X(p) (left + (p) / p_max * (w - left - right))
#define Y(v) (h - bottom - ((v) - y_min) / (y_max - y_min) * (h - bottom - top))
	for (size_t i = 0; i < n; i++) {
		if (r->points[i].max_max > y_max)
			y_max = r->points[i].max_max;
		if (r->points[i].max_min < y_min)
			y_min = r->points[i].max_min;
	}
	if (r->fit.a < y_min)
		y_min = r->fit.a;
	if (y_max <= y_min)
		y_max = y_min + 1;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		     "font-size=\"10\" font-family=\"sans-serif\">\n", w, h);
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n",
		left, h - bottom, w - right, h - bottom);
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n",
		left, top, left, h - bottom);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n", left - 4,
		top + 8, y_max);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>\n", left - 4,
		h - bottom, y_min);
	for (size_t i = 0; i < n; i++) {
		const struct compare_point *p = &r->points[i];

		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n",
			X(p->world_size), h - bottom + 14, p->world_size);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			     "stroke=\"#888\"/>\n",
			X(p->world_size), Y(p->max_min), X(p->world_size), Y(p->max_max));
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#c00\"/>\n",
			X(p->world_size), Y(p->max));
	}
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#06c\" "
		     "stroke-dasharray=\"4 2\"/>\n",
		X(0), Y(r->fit.a), X(p_max), Y(r->fit.a + r->fit.b * p_max));
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">processes</text>\n",
		w - right, h - 2);
	fprintf(out, "</svg>\n");
#undef X
#undef Y
}

void comparison__html(FILE *out, const struct comparison *c)
{
	fprintf(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		     "<title>heaptap compare</title>\n<style>body{font-family:sans-serif}"
		     "td,th{padding:2px 8px;text-align:right}td.f{text-align:left}"
		     "</style></head><body>\n<h1>heaptap compare</h1>\n<p>");
	print_heading(out, c);
	fprintf(out, "A function grows when b&middot;p at the largest p is at least %.0f%% of its "
		     "max there and R&sup2; &ge; %.2f. Values: the median over ranks of max "
		     "(usable bytes, inclusive).</p>\n",
		COMPARE_GROWTH_SHARE * 100, COMPARE_MIN_R2);
	for (size_t k = 0; k < c->nr && c->rows[k].grows; k++) {
		const struct compare_row *r = &c->rows[k];

		fputs("<h3>", out);
		html_path(out, r);
		fprintf(out, "</h3>\n<p>%.1f bytes per process, R&sup2; %.3f</p>\n", r->fit.b,
			r->fit.r2);
		plot(out, r, c->nr_sizes);
	}
	fprintf(out, "<h2>All functions</h2>\n<table>\n<tr><th>grows</th><th>bytes/process</th>"
		     "<th>R&sup2;</th>");
	for (size_t i = 0; i < c->nr_sizes; i++)
		fprintf(out, "<th>p=%d</th>", c->world_size[i]);
	fprintf(out, "<th>function</th></tr>\n");
	for (size_t k = 0; k < c->nr; k++) {
		const struct compare_row *r = &c->rows[k];

		fprintf(out, "<tr><td>%s</td><td>%.1f</td><td>%.2f</td>", r->grows ? "yes" : "no",
			r->fit.b, r->fit.r2);
		for (size_t i = 0; i < c->nr_sizes; i++)
			fprintf(out, "<td>%.0f</td>", r->points[i].max);
		fputs("<td class=\"f\">", out);
		html_path(out, r);
		fputs("</td></tr>\n", out);
	}
	fprintf(out, "</table>\n</body></html>\n");
	fflush(out);
}
