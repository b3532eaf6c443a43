// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * report --html and compare --html opened in a real headless browser: the page draws
 * without a console message, its plots carry one series per rank (bands beyond 50 ranks),
 * the outlier is highlighted, nothing is fetched, and a 1,000-rank job renders within 5 s.
 * The reports are synthetic: the test writes them, so it knows every figure the page shows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <json-c/json.h>
#include "browser.h"
#include "driver.h"

#define MIB (1024LL * 1024)
/* The outlier's lines, bars and button (tools/report/page.js OUTLIER). */
#define OUTLIER_RGB 0xc62828

struct job_spec {
	int ranks, world_size, outlier; /* outlier -1: none */
	int samples;
};

static const char *const funcs[][2] = {
	{ "solver_alloc", "/opt/app/lib/libsolver.so" },
	{ "read_mesh", "/opt/app/lib/libmesh.so" },
	{ "MPI_Init", "/usr/lib/x86_64-linux-gnu/libmpi.so.40" },
};
#define NR_FUNCS (sizeof(funcs) / sizeof(funcs[0]))

/* Rank r's max in function k: the outlier holds five times the others. */
static long long func_max(const struct job_spec *s, int r, size_t k)
{
	return (long long)(k + 1) * MIB * (r == s->outlier ? 5 : 1) + r * 4096LL;
}

static long long total_max(const struct job_spec *s, int r)
{
	long long t = 0;

	for (size_t k = 0; k < NR_FUNCS; k++)
		t += func_max(s, r, k);
	return t;
}

static json_object *bal(long long current, long long max)
{
	json_object *o = json_object_new_object(), *calls = json_object_new_object();

	json_object_object_add(o, "current", json_object_new_int64(current));
	json_object_object_add(o, "min", json_object_new_int64(0));
	json_object_object_add(o, "max", json_object_new_int64(max));
	json_object_object_add(o, "requested", json_object_new_int64(max));
	json_object_object_add(calls, "malloc", json_object_new_int64(10));
	json_object_object_add(calls, "free", json_object_new_int64(10));
	json_object_object_add(o, "calls", calls);
	return o;
}

/* bal's fields added to o, with the given extra keys before them. */
static json_object *with_bal(json_object *o, long long current, long long max)
{
	json_object *b = bal(current, max);

	json_object_object_foreach(b, k, v)
		json_object_object_add(o, k, json_object_get(v));
	json_object_put(b);
	return o;
}

static json_object *frame(const char *function, const char *library)
{
	json_object *f = json_object_new_object();

	json_object_object_add(f, "function", json_object_new_string(function));
	json_object_object_add(f, "library", json_object_new_string(library));
	return f;
}

static json_object *tree_node(long long max, int depth, size_t k)
{
	json_object *n = json_object_new_object(), *path = json_object_new_array();

	json_object_array_add(path, frame("main", "/opt/app/bin/solver"));
	if (depth > 1)
		json_object_array_add(path, frame(funcs[k][0], funcs[k][1]));
	if (depth > 2)
		json_object_array_add(path, frame("malloc", "/usr/lib/x86_64-linux-gnu/libc.so.6"));
	json_object_object_add(n, "path", path);
	return with_bal(n, 0, max);
}

/* One rank's report, as heaptap run writes it. */
static void write_rank(const struct job_spec *s, int r, const char *path)
{
	json_object *root = json_object_new_object(), *procs = json_object_new_array();
	json_object *p = json_object_new_object(), *threads = json_object_new_array();
	json_object *libs = json_object_new_array(), *fns = json_object_new_array();
	json_object *samples = json_object_new_array(), *tree = json_object_new_array();
	long long peak = total_max(s, r);
	char host[32];

	snprintf(host, sizeof(host), "node%02d", r / 16);
	json_object_object_add(p, "pid", json_object_new_int(10000 + r));
	json_object_object_add(p, "rank", json_object_new_int(r));
	json_object_object_add(p, "world_size", json_object_new_int(s->world_size));
	json_object_object_add(p, "host", json_object_new_string(host));
	json_object_object_add(p, "job", json_object_new_string("4242"));
	json_object_object_add(p, "command", json_object_new_string("./solver <mesh>"));
	json_object_object_add(p, "exited", json_object_new_boolean(1));
	json_object_object_add(p, "lost_events", json_object_new_int(0));
	json_object_object_add(p, "incomplete_stacks", json_object_new_int(0));
	json_object_object_add(p, "total", bal(0, peak));
	{
		json_object *t = json_object_new_object();

		json_object_object_add(t, "tid", json_object_new_int(10000 + r));
		json_object_object_add(t, "name", json_object_new_string("solver"));
		json_object_array_add(threads, with_bal(t, 0, peak));
	}
	json_object_array_add(tree, tree_node(peak, 1, 0));
	for (size_t k = 0; k < NR_FUNCS; k++) {
		json_object *l = json_object_new_object(), *f = json_object_new_object();

		json_object_object_add(l, "library", json_object_new_string(funcs[k][1]));
		json_object_array_add(libs, with_bal(l, 0, func_max(s, r, k)));
		json_object_object_add(f, "function", json_object_new_string(funcs[k][0]));
		json_object_object_add(f, "library", json_object_new_string(funcs[k][1]));
		json_object_array_add(fns, with_bal(f, 0, func_max(s, r, k)));
		json_object_array_add(tree, tree_node(func_max(s, r, k), 2, k));
		json_object_array_add(tree, tree_node(func_max(s, r, k), 3, k));
	}
	/* Up to the peak, then all freed at the last sample. */
	for (int i = 0; i < s->samples; i++) {
		json_object *sm = json_object_new_array();
		long long cur = i + 1 < s->samples ? peak * i / (s->samples - 2) : 0;

		json_object_array_add(sm, json_object_new_double(0.5 * i));
		json_object_array_add(sm, json_object_new_int64(cur));
		json_object_array_add(sm, json_object_new_int64(cur > 0 ? cur : peak));
		json_object_array_add(samples, sm);
	}
	json_object_object_add(p, "threads", threads);
	json_object_object_add(p, "libraries", libs);
	json_object_object_add(p, "functions", fns);
	json_object_object_add(p, "samples", samples);
	json_object_object_add(p, "calltree", tree);
	json_object_array_add(procs, p);
	json_object_object_add(root, "heaptap", json_object_new_int(1));
	json_object_object_add(root, "attribution", json_object_new_string("entry"));
	json_object_object_add(root, "processes", procs);
	cr_assert(json_object_to_file_ext(path, root, JSON_C_TO_STRING_PLAIN) == 0,
		  "cannot write %s", path);
	json_object_put(root);
}

/* The job's reports, one per rank, in their own directory: argv of heaptap report. */
static char **write_job(const struct job_spec *s, const char *name, const char *html)
{
	char **argv = calloc(s->ranks + 5, sizeof(*argv)), dir[256];
	int n = 0;

	scratch_file(name, dir, sizeof(dir));
	cr_assert(mkdir(dir, 0755) == 0, "mkdir %s", dir);
	argv[n++] = strdup(heaptap_path());
	argv[n++] = "report";
	for (int r = 0; r < s->ranks; r++) {
		char path[300];

		snprintf(path, sizeof(path), "%s/rank-%d.json", dir, r);
		write_rank(s, r, path);
		argv[n++] = strdup(path);
	}
	argv[n++] = "--html";
	argv[n++] = (char *)html;
	return argv;
}

/*
 * Nothing to fetch: no source or link attribute, no CSS url() or @import, and any http(s)
 * address only inside the vendored library's licence banner (a comment opened by slash,
 * star, bang).
 */
static void expect_nothing_fetched(const char *page)
{
	char *text = slurp(page);
	const char *forbidden[] = { " src=", " href=", "url(", "@import", "srcset=" };

	cr_assert(text != NULL, "cannot read %s", page);
	for (size_t i = 0; i < sizeof(forbidden) / sizeof(forbidden[0]); i++)
		cr_expect(strstr(text, forbidden[i]) == NULL, "%s holds %s", page, forbidden[i]);
	for (const char *p = text; (p = strstr(p, "http")); p++) {
		const char *banner, *end;

		if (strncmp(p, "http://", 7) && strncmp(p, "https://", 8))
			continue;
		/* The last banner opened before the address, not closed before it. */
		banner = NULL;
		for (const char *b = text; (b = strstr(b, "/*!")) && b < p; b++)
			banner = b;
		end = banner ? strstr(banner, "*/") : NULL;
		cr_expect(banner && end && end > p, "%s fetches or links to %.60s", page, p);
	}
	free(text);
}

static void expect_no_console(const char *log, const char *what)
{
	char first[512];
	size_t n = browser_console_lines(log, first, sizeof(first));

	cr_expect(eq(sz, n, 0), "%s: %zu console messages, the first: %s", what, n, first);
}

static long long attr_of(const char *dom, const char *element_text, const char *attr)
{
	const char *e = strstr(dom, element_text), *a;
	char key[64];

	snprintf(key, sizeof(key), "%s=\"", attr);
	a = e ? strstr(e, key) : NULL;
	return a && a - e < 400 ? atoll(a + strlen(key)) : -1;
}

static size_t count_in(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/*
 * A click near a line of the plot over time opens that rank's report. A copy of the page
 * moves the pointer down the plot at 80% of its width, the way a user would (move, press,
 * release, click), until a rank's report is shown: the first line met from the top is the
 * outlier's, far above the others there.
 */
static void expect_click_opens_outlier(const char *html, int outlier)
{
	static const char pointer[] =
		"<script>\n(function () {\n"
		"var over = document.querySelector(\"#time .u-over\");\n"
		"var r = over.getBoundingClientRect(), x = r.left + r.width * 0.8;\n"
		"var found = \"none\";\n"
		"for (var y = r.top + 1; y < r.bottom && found === \"none\"; y += 2) {\n"
		"  [\"mousemove\", \"mousedown\", \"mouseup\", \"click\"].forEach(function (t) {\n"
		"    over.dispatchEvent(new MouseEvent(t, { clientX: x, clientY: y,\n"
		"                                           bubbles: true }));\n"
		"  });\n"
		"  var b = document.querySelector(\"#ranks button.shown\");\n"
		"  if (b) found = b.getAttribute(\"data-rank\");\n"
		"}\n"
		"document.body.setAttribute(\"data-clicked\", found);\n"
		"})();\n</script>\n";
	char copy[256], dom[256], log[256], want[64];
	char *page = slurp(html), *d;
	FILE *f = fopen(scratch_file("click.html", copy, sizeof(copy)), "w");

	cr_assert(page != NULL && f != NULL);
	fputs(page, f);
	fputs(pointer, f);
	fclose(f);
	free(page);
	browser_dump_dom(copy, scratch_file("click.dom", dom, sizeof(dom)),
			 scratch_file("click.log", log, sizeof(log)), 60);
	expect_no_console(log, "the job's page, clicked");
	d = slurp(dom);
	snprintf(want, sizeof(want), "data-clicked=\"%d\"", outlier);
	cr_expect(d != NULL && strstr(d, want) != NULL,
		  "a click on the outlier's line did not open rank %d's report (%.40s)", outlier,
		  d && strstr(d, "data-clicked=") ? strstr(d, "data-clicked=") : "no click ran");
	free(d);
}

Test(html, job_page)
{
	const struct job_spec s = { .ranks = 8, .world_size = 8, .outlier = 3, .samples = 24 };
	char html[256], out[256], err[256], dom[256], log[256], png[256], want[128];
	char **argv;
	char *page, *d;
	struct png_image img;
	double secs;
	const char *copy = getenv("HEAPTAP_SCREENSHOT");

	scratch_file("job.html", html, sizeof(html));
	argv = write_job(&s, "job8", html);
	cr_assert(eq(int, wait_status(spawn(argv, scratch_file("report.out", out, sizeof(out)),
					    scratch_file("report.err", err, sizeof(err))), 60), 0),
		  "heaptap report --html: %s", slurp(err));
	expect_nothing_fetched(html);
	page = slurp(html);
	/* Each rank's own text report is in the page, to be shown on a click. */
	for (int r = 0; r < s.ranks; r++) {
		snprintf(want, sizeof(want), "PID: %d, rank: %d of %d", 10000 + r, r, s.world_size);
		cr_expect(strstr(page, want) != NULL, "rank %d's report is not in the page", r);
	}
	free(page);

	secs = browser_dump_dom(html, scratch_file("job.dom", dom, sizeof(dom)),
				scratch_file("dom.log", log, sizeof(log)), 60);
	expect_no_console(log, "the job's page");
	d = slurp(dom);
	cr_assert(d != NULL && strstr(d, "data-render-ms=") != NULL,
		  "the page's script did not finish: %.300s",
		  d ? d : "(no DOM)");
	cr_expect(strstr(d, "<canvas") != NULL, "no plot canvas in the page");
	cr_expect(eq(i64, attr_of(d, "<div class=\"plot\" data-mode=\"lines\"", "data-series"),
		     s.ranks), "the plot over time: one line per rank");
	cr_expect(eq(i64, attr_of(d, "data-bars=", "data-bars"), (long long)NR_FUNCS),
		  "a bar per function");
	cr_expect(eq(sz, count_in(d, "data-rank=\""), (size_t)s.ranks), "a button per rank");
	snprintf(want, sizeof(want), "<button class=\"outlier\" data-rank=\"%d\"", s.outlier);
	cr_expect(strstr(d, want) != NULL, "rank %d's button is not marked as the outlier",
		  s.outlier);
	/* The call tree below main: its max over the ranks is the outlier's, in every rank. */
	snprintf(want, sizeof(want), "(rank %d), %d ranks", s.outlier, s.ranks);
	cr_expect(strstr(d, want) != NULL, "the call tree's top line does not say \"%s\"", want);
	cr_expect(strstr(d, " src=\"") == NULL && strstr(d, " href=\"") == NULL,
		  "the drawn page links out");
	cr_log_info("job page, %d ranks: %ld bytes, chromium %.2f s, rendered in %lld ms",
		    s.ranks, file_size(html), secs, attr_of(d, "<body", "data-render-ms"));
	free(d);

	/* page#rank-N: rank N's report shown, as a click on its button shows it. */
	{
		char url[300], *shown;

		snprintf(url, sizeof(url), "%s#rank-%d", html, s.outlier);
		browser_dump_dom(url, dom, log, 60);
		expect_no_console(log, "the job's page, #rank-N");
		d = slurp(dom);
		shown = d ? strstr(d, "<pre class=\"text\">") : NULL;
		cr_expect(shown != NULL, "no rank's report shown");
		snprintf(want, sizeof(want), "PID: %d, rank: %d of %d", 10000 + s.outlier,
			 s.outlier, s.world_size);
		cr_expect(shown && strstr(shown, want) &&
				  strstr(shown, want) < strstr(shown, "</pre>"),
			  "the report shown is not rank %d's", s.outlier);
		cr_expect(shown && strstr(shown, "Function: solver_alloc") != NULL,
			  "the rank's report has no function section");
		free(d);
	}

	expect_click_opens_outlier(html, s.outlier);

	browser_screenshot(html, scratch_file("job.png", png, sizeof(png)), 1200, 2000,
			   scratch_file("shot.log", log, sizeof(log)), 60);
	expect_no_console(log, "the job's page, screenshot");
	png_read(png, &img);
	cr_expect(eq(u32, img.width, 1200));
	cr_expect(png_colors(&img, 1000) > 50, "the screenshot is near blank: %zu colors",
		  png_colors(&img, 1000));
	cr_expect(png_pixels_near(&img, OUTLIER_RGB, 40) > 500,
		  "the outlier's line is not drawn in red: %zu red pixels",
		  png_pixels_near(&img, OUTLIER_RGB, 40));
	png_free(&img);
	if (copy) { /* make report-screenshot: the README's picture */
		char *cp[] = { "cp", png, (char *)copy, NULL };

		cr_expect(eq(int, wait_status(spawn(cp, NULL, NULL), 10), 0), "cp to %s", copy);
	}
}

Test(html, thousand_ranks)
{
	const struct job_spec s = { .ranks = 1000, .world_size = 1000, .outlier = 917,
				    .samples = 40 };
	char html[256], out[256], err[256], dom[256], log[256];
	char **argv;
	char *d;
	double t0, report_s, browser_s;
	long long render_ms;

	scratch_file("job1000.html", html, sizeof(html));
	argv = write_job(&s, "job1000", html);
	t0 = now_s();
	cr_assert(eq(int, wait_status(spawn(argv, scratch_file("report.out", out, sizeof(out)),
					    scratch_file("report.err", err, sizeof(err))), 120), 0),
		  "heaptap report --html: %s", slurp(err));
	report_s = now_s() - t0;
	browser_s = browser_dump_dom(html, scratch_file("job1000.dom", dom, sizeof(dom)),
				     scratch_file("dom.log", log, sizeof(log)), 60);
	expect_no_console(log, "the 1,000-rank page");
	d = slurp(dom);
	render_ms = attr_of(d, "<body", "data-render-ms");
	cr_assert(render_ms >= 0, "the page's script did not finish");
	/* min, p10, median, p90, max, and the outlier's own line. */
	cr_expect(eq(i64, attr_of(d, "<div class=\"plot\" data-mode=\"bands\"", "data-series"), 6),
		  "1,000 ranks over time: 5 band series and the outlier");
	cr_expect(eq(sz, count_in(d, "data-rank=\""), (size_t)s.ranks), "a button per rank");
	cr_expect(render_ms < 5000, "1,000 ranks rendered in %lld ms", render_ms);
	cr_log_info("1,000 ranks: page %ld bytes, heaptap report --html %.2f s, chromium %.2f s, "
		    "rendered in %lld ms", file_size(html), report_s, browser_s, render_ms);
	expect_nothing_fetched(html);
	free(d);
}

/* compare's reports: the call below app_init that grows with the process count. */
static void write_compare_report(int world_size, const char *path)
{
	json_object *root = json_object_new_object(), *procs = json_object_new_array();

	for (int r = 0; r < world_size; r++) {
		json_object *p = json_object_new_object(), *tree = json_object_new_array();
		const char *names[] = { "main", "app_init", "peer_table", "fixed_setup" };
		long long peer = 1000LL * world_size, fixed = 50000;
		long long max[] = { peer + fixed, peer + fixed, peer, fixed };

		for (int k = 0; k < 4; k++) {
			json_object *n = json_object_new_object(), *path = json_object_new_array();

			for (int j = 0; j <= (k < 2 ? k : 1); j++)
				json_object_array_add(path, frame(names[j], "/opt/app/bin/app"));
			if (k >= 2)
				json_object_array_add(path, frame(names[k], "/opt/app/bin/app"));
			json_object_object_add(n, "path", path);
			json_object_array_add(tree, with_bal(n, 0, max[k]));
		}
		json_object_object_add(p, "pid", json_object_new_int(2000 + r));
		json_object_object_add(p, "rank", json_object_new_int(r));
		json_object_object_add(p, "world_size", json_object_new_int(world_size));
		json_object_object_add(p, "command", json_object_new_string("./app"));
		json_object_object_add(p, "total", bal(0, peer + fixed));
		json_object_object_add(p, "calltree", tree);
		json_object_array_add(procs, p);
	}
	json_object_object_add(root, "heaptap", json_object_new_int(1));
	json_object_object_add(root, "attribution", json_object_new_string("entry"));
	json_object_object_add(root, "processes", procs);
	cr_assert(json_object_to_file(path, root) == 0, "cannot write %s", path);
	json_object_put(root);
}

Test(html, compare_page)
{
	char reports[3][256], html[256], out[256], err[256], dom[256], log[256], name[32];
	char *d;
	const int sizes[] = { 2, 4, 8 };

	for (int k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "np-%d.json", sizes[k]);
		write_compare_report(sizes[k], scratch_file(name, reports[k], sizeof(reports[k])));
	}
	scratch_file("compare.html", html, sizeof(html));
	{
		char *argv[] = { (char *)heaptap_path(), "compare", reports[0], reports[1],
				 reports[2], "--under", "app_init", "--depth", "2", "--html", html,
				 NULL };

		cr_assert(eq(int, wait_status(spawn(argv, scratch_file("cmp.out", out, sizeof(out)),
						    scratch_file("cmp.err", err, sizeof(err))),
					      60),
			     0),
			  "compare --html: %s", slurp(err));
	}
	expect_nothing_fetched(html);
	browser_dump_dom(html, scratch_file("compare.dom", dom, sizeof(dom)),
			 scratch_file("compare.log", log, sizeof(log)), 60);
	expect_no_console(log, "the compare page");
	d = slurp(dom);
	/* app_init and peer_table grow (1000 bytes a process), fixed_setup does not. */
	cr_expect(eq(sz, count_in(d, "<div class=\"plot\""), 2), "a plot per growing function");
	cr_expect(eq(sz, count_in(d, "data-series=\"4\""), 2),
		  "each plot: the ranks' min and max, the medians, the line");
	cr_expect(eq(sz, count_in(d, "<canvas"), 2), "each plot drawn");
	free(d);
}
