// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The text report of run: the answer first, against what the traced programs know of
 * themselves (the demo's tree, the JSON of the same run); only the calls made; sizes in
 * one style, or exact with --bytes; the mappings by kind, their stacks with --mappings;
 * the budgets with -v only; DMATP's layout with --dmatp, as golden/dmatp_*.txt recorded it
 * before the layout changed; an MPI job's summary across its ranks.
 */
#include <inttypes.h>
#include <libgen.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(report_text, .timeout = 120);

/* The lines of a report the issue promised: the answer in the first 12, 45 in all. */
#define SUMMARY_LINES 12
#define DEMO_LINES 45

/* A size as the report writes it, from its own rule: binary units, one decimal. */
static const char *size_of(int64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	int u = 0;

	for (; (v >= 1024 || v <= -1024) && u < 5; u++)
		v /= 1024;
	if (!u)
		snprintf(buf, size, "%" PRId64 " B", bytes);
	else
		snprintf(buf, size, "%.1f %s", v, units[u]);
	return buf;
}

/* The report's nth line (from 1), copied into buf; false past its end. */
static bool line_of(const char *text, int n, char *buf, size_t size)
{
	for (int i = 1; i < n && text; i++) {
		text = strchr(text, '\n');
		text = text ? text + 1 : NULL;
	}
	if (!text || !*text)
		return false;
	snprintf(buf, size, "%.*s", (int)strcspn(text, "\n"), text);
	return true;
}

static int count_lines(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* heaptap run [options...] --json J -o T -- argv...: the text, and the JSON in *json. */
static char *run_report(char *const options[], char *const command[], json_object **json)
{
	char *argv[64], jpath[256], tpath[256];
	int n = 0;

	argv[n++] = (char *)heaptap_path();
	argv[n++] = "run";
	for (int i = 0; options[i]; i++)
		argv[n++] = options[i];
	argv[n++] = "--json";
	argv[n++] = (char *)scratch_file("report.json", jpath, sizeof(jpath));
	argv[n++] = "-o";
	argv[n++] = (char *)scratch_file("report.txt", tpath, sizeof(tpath));
	argv[n++] = "--";
	for (int i = 0; command[i]; i++)
		argv[n++] = command[i];
	argv[n] = NULL;
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 90), 0), "heaptap run failed");
	if (json)
		*json = load_json(jpath);
	return slurp(tpath);
}

/*
 * The demo's report names the site that held its peak in its first lines: its tree of
 * nodes (insert < tree_worker), as many as the demo counted at most, less at most what
 * its log can displace, each of the size the demo's allocator gives a node.
 */
Test(report_text, demo_answer_first)
{
	char demo[4096], truth_path[256], line[512], want[128], size[32];
	json_object *report, *truth, *site;
	char *text;
	long most, node, log_bytes, blocks = -1, bytes;
	int first = 0;

	require_bpf();
	text = run_report((char *[]){ NULL },
			  (char *[]){ (char *)target_path("demo", demo, sizeof(demo)), "--truth",
				      (char *)scratch_file("truth.json", truth_path,
							   sizeof(truth_path)), NULL },
			  &report);
	truth = load_json(truth_path);
	most = json_object_get_int64(get(truth, "most_nodes"));
	node = json_object_get_int64(get(truth, "node_usable"));
	log_bytes = json_object_get_int64(get(truth, "log_usable"));
	cr_assert(text && most > 0 && node > 0);
	cr_expect(le(int, count_lines(text), DEMO_LINES), "%s", text);

	for (int n = 1; n <= SUMMARY_LINES && line_of(text, n, line, sizeof(line)); n++) {
		if (strstr(line, ": insert < tree_worker (demo)") && strstr(line, " in ")) {
			first = n;
			break;
		}
	}
	cr_assert(first > 0, "the tree's site is not in the first %d lines:\n%s", SUMMARY_LINES,
		  text);
	/* The printed count has commas: read it back without them. */
	{
		const char *in = strstr(line, " in ") + 4;
		char digits[32];
		size_t k = 0;

		for (; *in && *in != ' ' && k + 1 < sizeof(digits); in++)
			if (*in != ',')
				digits[k++] = *in;
		digits[k] = '\0';
		blocks = atol(digits);
	}
	/* At the process's peak the log (main thread) may have displaced a few nodes. */
	cr_expect(le(long, blocks, most), "%s", line);
	cr_expect(ge(long, blocks, most - log_bytes / node - 1), "%s", line);
	bytes = blocks * node;
	snprintf(want, sizeof(want), "%s in ", size_of(bytes, size, sizeof(size)));
	cr_expect(strstr(line, want) != NULL, "want %s: %s", want, line);

	/* The same site leads the JSON's peak, with the same blocks. */
	site = json_object_array_get_idx(get(get(json_object_array_get_idx(get(report,
				"processes"), 0), "peak"), "sites"), 0);
	cr_expect(eq(i64, json_object_get_int64(get(site, "blocks")), blocks));
	cr_expect(eq(i64, json_object_get_int64(get(site, "bytes")), bytes));
	/* The peak's line above it says the process's peak. */
	cr_assert(line_of(text, 3, line, sizeof(line)));
	snprintf(want, sizeof(want), "Peak: %s in ",
		 size_of(json_object_get_int64(get(get(json_object_array_get_idx(get(report,
				"processes"), 0), "peak"), "bytes")), size, sizeof(size)));
	cr_expect(strstr(line, want) == line, "want %s: %s", want, line);
	json_object_put(truth);
	json_object_put(report);
	free(text);
}

/* Every call count shown is one that is not 0; each row's calls are the JSON's. */
static void expect_calls(const char *row, json_object *group)
{
	json_object_object_foreach(get(group, "calls"), name, value) {
		char want[64];
		long long n = json_object_get_int64(value);

		snprintf(want, sizeof(want), " %s %lld", name, n);
		if (n && n < 1000)
			cr_expect(strstr(row, want) != NULL, "want%s: %s", want, row);
		snprintf(want, sizeof(want), " %s 0", name);
		cr_expect(strstr(row, want) == NULL || n, "a call count of 0: %s", row);
		if (!n) {
			snprintf(want, sizeof(want), " %s ", name);
			cr_expect(strstr(row, want) == NULL, "%s not called: %s", name, row);
		}
	}
}

/* --bytes: the same report with exact counts; rows as the JSON has them. */
Test(report_text, bytes_and_only_the_calls_made)
{
	char target[4096], line[512], want[128];
	json_object *report, *process, *threads;
	char *text, *row;

	require_bpf();
	text = run_report((char *[]){ "--bytes", NULL },
			  (char *[]){ (char *)target_path("groundtruth", target, sizeof(target)),
				      NULL },
			  &report);
	process = json_object_array_get_idx(get(report, "processes"), 0);
	cr_assert(text && line_of(text, 3, line, sizeof(line)));
	snprintf(want, sizeof(want), "Peak: %" PRId64 " in ",
		 json_object_get_int64(get(get(process, "peak"), "bytes")));
	cr_expect(strstr(line, want) == line, "want %s: %s", want, line);
	threads = get(process, "threads");
	cr_assert(gt(sz, json_object_array_length(threads), 1));
	for (size_t i = 0; i < json_object_array_length(threads); i++) {
		json_object *th = json_object_array_get_idx(threads, i);
		char name[128];

		snprintf(name, sizeof(name), "  %s (TID %d)",
			 json_object_get_string(get(th, "name")), json_object_get_int(get(th, "tid")));
		row = strstr(text, name);
		cr_assert(row != NULL, "no row %s: %s", name, text);
		while (row > text && row[-1] != '\n')
			row--;
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(row, "\n"), row);
		snprintf(want, sizeof(want), "%" PRId64 " %" PRId64 " ",
			 json_object_get_int64(get(th, "current")),
			 json_object_get_int64(get(th, "max")));
		/* The columns: now and peak, right-aligned. */
		{
			long long now, peak;

			cr_expect(eq(int, sscanf(line, "%lld %lld", &now, &peak), 2), "%s", line);
			cr_expect(eq(i64, now, json_object_get_int64(get(th, "current"))), "%s",
				  line);
			cr_expect(eq(i64, peak, json_object_get_int64(get(th, "max"))), "%s", line);
		}
		expect_calls(line, th);
	}
	cr_expect(strstr(text, "mem_size") == NULL && strstr(text, "map_size") == NULL);
	json_object_put(report);
	free(text);
}

/* The mappings by kind, their stacks only with --mappings, the budgets only with -v. */
Test(report_text, mappings_by_kind_stacks_and_budgets_when_asked)
{
	char target[4096], want[128];
	json_object *report, *total;
	char *text;

	require_bpf();
	target_path("mappings", target, sizeof(target));
	text = run_report((char *[]){ "--bytes", NULL }, (char *[]){ target, NULL }, &report);
	total = get(get(json_object_array_get_idx(get(report, "processes"), 0), "mappings"),
		    "total");
	cr_assert(text && strstr(text, "----- Mappings by kind") != NULL, "%s", text);
	for (const char *const *k = (const char *const[]){ "anonymous", "file", "brk", NULL }; *k;
	     k++) {
		int64_t v = json_object_get_int64(get(total, *k));

		snprintf(want, sizeof(want), " %" PRId64 "  %s\n", v, *k);
		cr_expect(v == 0 || strstr(text, want) != NULL, "want%s: %s", want, text);
	}
	cr_expect(strstr(text, "Stacks: ") == NULL, "stacks without --mappings: %s", text);
	cr_expect(strstr(text, "==== Unwind tables") == NULL && strstr(text, "budget") == NULL,
		  "budgets without -v: %s", text);
	json_object_put(report);
	free(text);

	text = run_report((char *[]){ "-v", "--mappings", NULL }, (char *[]){ target, NULL }, NULL);
	cr_assert(text != NULL);
	cr_expect(strstr(text, "Stacks: ") != NULL, "--mappings: %s", text);
	cr_expect(strstr(text, "==== Unwind tables") && strstr(text, "Symbol budget"), "-v: %s",
		  text);
	free(text);
}

/* Digits masked, as the golden files' numbers change from run to run. */
static void mask(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (*r >= '0' && *r <= '9') {
			if (w == s || w[-1] != '#')
				*w++ = '#';
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* text with every occurrence of from replaced by to (malloc'ed). */
static char *replace(const char *text, const char *from, const char *to)
{
	size_t n = 0, lf = strlen(from), lt = strlen(to);
	char *out, *w;

	for (const char *p = text; (p = strstr(p, from)); p += lf)
		n++;
	out = malloc(strlen(text) + n * (lt > lf ? lt - lf : 0) + 1);
	cr_assert(out != NULL);
	for (w = out; *text;) {
		if (!strncmp(text, from, lf)) {
			memcpy(w, to, lt);
			w += lt;
			text += lf;
		} else {
			*w++ = *text++;
		}
	}
	*w = '\0';
	return out;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines from the one starting with from up to the one starting with to (or the end). */
static char *section(const char *text, const char *from, const char *to)
{
	const char *start = strstr(text, from), *end;

	if (!start)
		return strdup("");
	end = to ? strstr(start, to) : NULL;
	return strndup(start, end ? (size_t)(end - start) : strlen(start));
}

/* Its lines sorted, masked: the budgets' files come in the order they were read. */
static char *sorted_lines(char *text)
{
	char *lines[256], *save = NULL, *out = calloc(1, strlen(text) + 2);
	size_t n = 0;

	mask(text);
	for (char *l = strtok_r(text, "\n", &save); l && n < 256; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	qsort(lines, n, sizeof(*lines), by_string);
	for (size_t i = 0; i < n; i++) {
		strcat(out, lines[i]);
		strcat(out, "\n");
	}
	return out;
}

/* A line that starts a block of DMATP's sections: a heading, a thread, a library. */
static bool starts_block(const char *line)
{
	return !strncmp(line, "Library: ", 9) || !strncmp(line, "Thread ID: ", 11) ||
	       !strncmp(line, "==== ", 5) ||
	       (!strncmp(line, "----- ", 6) &&
		strncmp(line, "----- Statistics of individual function", 40));
}

static int by_block(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Its blocks (starts_block) sorted: threads and libraries come in the order their first
 * call was read, which two threads calling at once decide.
 */
static char *sorted_blocks(const char *text)
{
	char *blocks[512], *out = calloc(1, strlen(text) + 1);
	const char *at = text;
	size_t n = 0;

	while (*at && n < 512) {
		const char *end = at;

		do {
			end = strchr(end, '\n');
			end = end ? end + 1 : at + strlen(at);
		} while (*end && !starts_block(end));
		blocks[n++] = strndup(at, (size_t)(end - at));
		at = end;
	}
	qsort(blocks, n, sizeof(*blocks), by_block);
	for (size_t i = 0; i < n; i++) {
		strcat(out, blocks[i]);
		free(blocks[i]);
	}
	return out;
}

/* DMATP's grammar of the Mappings section: its stacks differ between runs of one program. */
static const char *const mapping_lines[] = {
	"^----- Mappings: mmap, munmap, mremap, brk; madvise\\(DONTNEED, FREE\\) -----$",
	"^ *map_size = -?#, map_min = -?#, map_max = -?#; anonymous = -?#, file = -?#, "
	"brk = -?#; malloc's own = -?#$",
	"^ *mmap: #, munmap: #, mremap: #, brk: #, madvise: #(; released \\(madvise\\): # calls, "
	"# bytes)?(; unmapped from before tracing: # calls, # bytes)?$",
	"^RSS: # bytes at #\\.# s \\(the last of # samples\\), at most #$",
	"^Thread ID: # \\(.*\\)$",
	"^Library: .+$",
	"^  Function: .+$",
	"^Stacks: # \\(the largest first, by map_max; outermost frame first\\)$",
	"^  [a-z]+( \\(incomplete stack\\))?: .+$",
	"^  \\.\\.\\. # more in the JSON report \\(mappings\\.stacks\\)$",
	NULL,
};

static void expect_mapping_grammar(char *mappings)
{
	regex_t re[16];
	size_t nr = 0;
	char *save = NULL;

	for (; mapping_lines[nr]; nr++)
		cr_assert(eq(int, regcomp(&re[nr], mapping_lines[nr], REG_EXTENDED | REG_NOSUB),
			     0));
	mask(mappings);
	for (char *l = strtok_r(mappings, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		bool ok = false;

		for (size_t i = 0; i < nr && !ok; i++)
			ok = !regexec(&re[i], l, 0, NULL, 0);
		cr_expect(ok, "not a line of DMATP's Mappings section: '%s'", l);
	}
	for (size_t i = 0; i < nr; i++)
		regfree(&re[i]);
}

/*
 * --dmatp prints what heaptap printed before the summary came first: golden/dmatp_NAME.txt
 * is that output of an earlier heaptap (its targets' directory written TARGETS). Its
 * numbers (pids, times) change between runs: they are compared masked, and the first
 * balance line exactly with the JSON of the same run.
 */
static void expect_dmatp(const char *name)
{
	char target[4096], golden_path[4096], targets[4096], want[256];
	char *got, *golden, *raw, *a, *b;
	json_object *report, *total;

	require_bpf();
	target_path(name, target, sizeof(target));
	snprintf(targets, sizeof(targets), "%s", target);
	snprintf(golden_path, sizeof(golden_path), "%s/tests/integration/golden/dmatp_%s.txt",
		 dirname(strdupa(heaptap_path())), name);
	raw = run_report((char *[]){ "--dmatp", NULL }, (char *[]){ target, NULL }, &report);
	got = replace(raw, dirname(targets), "TARGETS");
	golden = slurp(golden_path);
	cr_assert(golden != NULL, "no %s", golden_path);

	/* DMATP's sections and the owner's, line for line. */
	a = section(got, "heaptap report (", "----- Mappings");
	b = section(golden, "heaptap report (", "----- Mappings");
	mask(a);
	mask(b);
	{
		char *sa = sorted_blocks(a), *sb = sorted_blocks(b);

		cr_expect(eq(str, sa, sb), "--dmatp's sections differ from %s", golden_path);
		free(sa);
		free(sb);
	}
	free(a);
	free(b);
	/* The mappings, line by line in DMATP's grammar. */
	a = section(got, "----- Mappings", "==== ");
	b = section(golden, "----- Mappings", "==== ");
	cr_expect(strlen(a) > 0 && strlen(b) > 0);
	expect_mapping_grammar(a);
	free(a);
	free(b);
	/* The unwind tables and the budgets, in any order. */
	a = sorted_lines(section(got, "==== Unwind tables", NULL));
	b = sorted_lines(section(golden, "==== Unwind tables", NULL));
	cr_expect(eq(str, a, b), "--dmatp's budgets differ from %s", golden_path);
	free(a);
	free(b);

	/* The numbers are the run's own, raw. */
	total = get(json_object_array_get_idx(get(report, "processes"), 0), "total");
	snprintf(want, sizeof(want), "\nmem_size = %" PRId64 ", mem_min = %" PRId64 ", mem_max = %"
		 PRId64 ", requested = %" PRId64 "\n", json_object_get_int64(get(total, "current")),
		 json_object_get_int64(get(total, "min")), json_object_get_int64(get(total, "max")),
		 json_object_get_int64(get(total, "requested")));
	cr_expect(strstr(raw, want) != NULL, "want %s in %s", want, raw);
	json_object_put(report);
	free(golden);
	free(got);
	free(raw);
}

Test(report_text, dmatp_demo)
{
	expect_dmatp("demo");
}

Test(report_text, dmatp_groundtruth)
{
	expect_dmatp("groundtruth");
}

Test(report_text, dmatp_mappings)
{
	expect_dmatp("mappings");
}

/*
 * An MPI job's text is heaptap report's summary of its JSON, not each rank's sections
 * (those with --full).
 */
Test(report_text, mpi_job_ends_with_the_summary)
{
	char target[4096], json[256], summary[256];
	char *text, *want, *tail, *full;
	char *mpirun[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
			   (char *)target_path("mpi_tree", target, sizeof(target)), "--truth-dir",
			   (char *)scratch_dir(), NULL };

	require_bpf();
	text = run_report((char *[]){ "--mpi", NULL }, mpirun, NULL);
	cr_assert(text != NULL);
	scratch_file("report.json", json, sizeof(json));
	scratch_file("summary.txt", summary, sizeof(summary));
	cr_assert(eq(int, wait_status(spawn((char *[]){ (char *)heaptap_path(), "report", json,
							"-o", summary, NULL }, NULL, NULL), 30),
		     0));
	want = slurp(summary);
	tail = strstr(text, "heaptap job summary");
	cr_assert(want && tail, "%s", text);
	cr_expect(eq(str, tail, want));
	cr_expect(strstr(text, "==== PID") == NULL, "ranks' sections without --full: %s", text);
	cr_expect(strstr(want, "2 MPI ranks") != NULL, "%s", want);

	full = run_report((char *[]){ "--mpi", "--full", NULL }, mpirun, NULL);
	cr_assert(full != NULL);
	cr_expect(eq(int, lines_with(full, "==== PID", ", rank "), 2), "%s", full);
	cr_expect(strstr(full, "heaptap job summary") > strstr(full, "==== PID"), "%s", full);
	free(full);
	free(want);
	free(text);
}
