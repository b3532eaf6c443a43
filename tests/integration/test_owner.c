// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Who holds the memory, against the truth owner_truth counts of itself: per allocation
 * site, the blocks and bytes still allocated at the end, what it allocated, what it held
 * at the peak; the leak it makes, and the frees of blocks from before an attach. In run
 * and attach modes, the program built without frame pointers.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(owner, .timeout = 120);

static const char *const figures[] = { "blocks", "bytes", "requested", "allocated_blocks",
				       "allocated_bytes", "peak_blocks", "peak_bytes", NULL };

enum { BLOCKS, BYTES, REQUESTED, ALLOCATED_BLOCKS, ALLOCATED_BYTES, PEAK_BLOCKS, PEAK_BYTES,
       NR_FIGURES };

/* The site of an entry: the first frame in the program (its own function). */
static const char *site_of(json_object *entry)
{
	json_object *frames = get(entry, "frames");

	for (size_t i = 0; i < json_object_array_length(frames); i++) {
		json_object *f = json_object_array_get_idx(frames, i);
		const char *lib = json_object_get_string(get(f, "library"));
		size_t len = strlen(lib);

		if (len >= 12 && !strcmp(lib + len - 12, "/owner_truth"))
			return json_object_get_string(get(f, "function"));
	}
	return NULL;
}

/* heaptap's figures of one site, summed over its records (one per stack through it). */
static void sum_site(json_object *process, const char *name, long long out[NR_FIGURES])
{
	static const struct {
		const char *list, *field;
		int figure;
	} from[] = {
		{ "outstanding", "blocks", BLOCKS },	  { "outstanding", "bytes", BYTES },
		{ "outstanding", "requested", REQUESTED }, { "allocated", "blocks", ALLOCATED_BLOCKS },
		{ "allocated", "bytes", ALLOCATED_BYTES },
	};
	json_object *peak_sites = get(get(process, "peak"), "sites");

	memset(out, 0, NR_FIGURES * sizeof(out[0]));
	for (size_t k = 0; k < sizeof(from) / sizeof(from[0]); k++) {
		json_object *list = get(process, from[k].list);

		for (size_t i = 0; i < json_object_array_length(list); i++) {
			json_object *e = json_object_array_get_idx(list, i);
			const char *site = site_of(e);

			if (site && !strcmp(site, name))
				out[from[k].figure] += json_object_get_int64(get(e, from[k].field));
		}
	}
	for (size_t i = 0; i < json_object_array_length(peak_sites); i++) {
		json_object *e = json_object_array_get_idx(peak_sites, i);
		const char *site = site_of(e);

		if (site && !strcmp(site, name)) {
			out[PEAK_BLOCKS] += json_object_get_int64(get(e, "blocks"));
			out[PEAK_BYTES] += json_object_get_int64(get(e, "bytes"));
		}
	}
}

/* The outstanding entry of a site (the program's sites have one stack each). */
static json_object *outstanding_of(json_object *process, const char *name)
{
	json_object *list = get(process, "outstanding");

	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *e = json_object_array_get_idx(list, i);
		const char *site = site_of(e);

		if (site && !strcmp(site, name))
			return e;
	}
	return NULL;
}

static void check_owner(const char *report_path, const char *truth_path, bool attached)
{
	json_object *report = load_json(report_path), *truth = load_json(truth_path);
	json_object *process = json_object_array_get_idx(get(report, "processes"), 0);
	json_object *peak = get(process, "peak"), *freed = get(process, "freed_before_tracing");
	json_object *leak, *startup, *peak_sites = get(peak, "sites");
	long long peak_sum = 0;
	double rate, truth_rate;

	cr_assert(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));
	json_object_object_foreach(get(truth, "sites"), name, site) {
		long long got[NR_FIGURES];

		sum_site(process, name, got);
		for (int f = 0; f < NR_FIGURES; f++) {
			long long want = json_object_get_int64(get(site, figures[f]));

			/* Before an attach, pre_site's blocks were allocated unseen: not its. */
			if (attached && !strcmp(name, "pre_site"))
				want = 0;
			cr_expect(eq(i64, got[f], want), "%s: %s", name, figures[f]);
		}
	}
	cr_expect(eq(ptr, outstanding_of(process, "churn_site"), NULL),
		  "short-lived blocks are not outstanding");

	/* The peak: the sites' sum, the program's own peak plus what libc held then. */
	for (size_t i = 0; i < json_object_array_length(peak_sites); i++)
		peak_sum += json_object_get_int64(get(json_object_array_get_idx(peak_sites, i),
						      "bytes"));
	cr_expect(eq(i64, peak_sum, json_object_get_int64(get(peak, "bytes"))));
	cr_expect(ge(i64, json_object_get_int64(get(peak, "bytes")),
		     json_object_get_int64(get(truth, "peak_total"))));
	cr_expect(lt(i64, json_object_get_int64(get(peak, "bytes")) -
				  json_object_get_int64(get(truth, "peak_total")), 64 * 1024));

	/* A steady leak over seconds is one; blocks taken at start-up and held are not. */
	leak = outstanding_of(process, "leak_site");
	startup = outstanding_of(process, "startup_site");
	cr_assert(leak && startup);
	cr_expect(json_object_get_boolean(get(leak, "likely_leak")), "leak_site not flagged");
	cr_expect(not(json_object_get_boolean(get(startup, "likely_leak"))));
	rate = json_object_get_double(get(leak, "growth_bytes_per_second"));
	truth_rate = json_object_get_double(get(truth, "leak_bytes_per_second"));
	cr_expect(rate > truth_rate * 0.8 && rate < truth_rate * 1.2, "leak rate %.0f B/s, truth "
		  "%.0f B/s", rate, truth_rate);

	cr_expect(eq(i64, json_object_get_int64(get(freed, "calls")),
		     json_object_get_int64(get(truth, "pre_freed_calls"))));
	cr_expect(eq(i64, json_object_get_int64(get(freed, "bytes")),
		     json_object_get_int64(get(truth, "pre_freed_bytes"))));
	cr_expect(json_object_get_boolean(get(freed, "bytes_known")));
	json_object_put(report);
	json_object_put(truth);
}

/* A size as the text report writes it: binary units, one decimal ("2.7 MiB", "280 B"). */
static const char *size_of(long long bytes, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	for (; (v >= 1024 || v <= -1024) && u < 4; u++)
		v /= 1024;
	if (!u)
		snprintf(buf, size, "%lld B", bytes);
	else
		snprintf(buf, size, "%.1f %s", v, units[u]);
	return buf;
}

/* A count as the text report writes it: "60,001". */
static const char *count_of(long long n, char *buf, size_t size)
{
	if (n >= 1000000)
		snprintf(buf, size, "%lld,%03lld,%03lld", n / 1000000, n / 1000 % 1000, n % 1000);
	else if (n >= 1000)
		snprintf(buf, size, "%lld,%03lld", n / 1000, n % 1000);
	else
		snprintf(buf, size, "%lld", n);
	return buf;
}

/* The text's line that starts with prefix, copied into buf (NULL: none). */
static const char *line_starting(const char *text, const char *prefix, char *buf, size_t size)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, prefix, strlen(prefix))) {
			snprintf(buf, size, "%.*s", (int)strcspn(l, "\n"), l);
			return buf;
		}
	}
	return NULL;
}

/*
 * After an attach, one line at the top says what heaptap saw held and what was there
 * before it: pre_site's blocks, allocated before the attach and freed after it, as the
 * program counted them; the net change, the JSON's total.
 */
static void expect_since_attaching(const char *out, const char *report_path,
				   const char *truth_path)
{
	json_object *report = load_json(report_path), *truth = load_json(truth_path);
	json_object *process = json_object_array_get_idx(get(report, "processes"), 0);
	json_object *outstanding = get(process, "outstanding");
	long long held = 0, blocks = 0;
	char *text = slurp(out), line[1024], want[512], a[32], b[32], c[32], d[32], e[32];

	for (size_t i = 0; i < json_object_array_length(outstanding); i++) {
		json_object *site = json_object_array_get_idx(outstanding, i);

		held += json_object_get_int64(get(site, "bytes"));
		blocks += json_object_get_int64(get(site, "blocks"));
	}
	cr_assert(text != NULL);
	cr_assert(line_starting(text, "Since attaching: ", line, sizeof(line)) != NULL, "%s", text);
	cr_expect(strstr(text, line) - text < 400, "not at the top: %s", text);
	snprintf(want, sizeof(want), "Since attaching: %s in %s blocks allocated and still held; "
		 "%s in %s blocks freed that were there before: net change %s",
		 size_of(held, a, sizeof(a)), count_of(blocks, b, sizeof(b)),
		 size_of(json_object_get_int64(get(truth, "pre_freed_bytes")), c, sizeof(c)),
		 count_of(json_object_get_int64(get(truth, "pre_freed_calls")), d, sizeof(d)),
		 size_of(json_object_get_int64(get(get(process, "total"), "current")), e,
			 sizeof(e)));
	cr_expect(eq(str, line, want));
	json_object_put(report);
	json_object_put(truth);
	free(text);
}

Test(owner, run_mode)
{
	char target[4096], json[256], truth[256], text[256];
	char *argv[] = { (char *)heaptap_path(), "run", "--dmatp", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o",
			 (char *)scratch_file("report.txt", text, sizeof(text)), "--",
			 (char *)target_path("owner_truth", target, sizeof(target)), "--truth",
			 (char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };
	char *report, *held, *at_peak;

	require_bpf();
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	check_owner(json, truth, false);

	report = slurp(text);
	cr_assert(report != NULL);
	held = strstr(report, "Still allocated at the end, by allocation site");
	at_peak = strstr(report, "At the peak, by allocation site");
	cr_assert(held && at_peak && held < at_peak);
	cr_expect(lines_with(held, "likely leak", NULL) == 1, "one likely leak: %s", held);
	cr_expect(strstr(held, "leak_site (owner_truth)") != NULL);
	cr_expect(strstr(at_peak, "peak_site (owner_truth)") != NULL);
	free(report);
}

Test(owner, attach_mode)
{
	char target_bin[4096], json[256], truth[256], out[256], err[256], pid_arg[32];
	char *target_argv[] = { (char *)target_path("owner_truth", target_bin, sizeof(target_bin)),
				"--wait", "--truth",
				(char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };
	pid_t target, tracer;

	require_bpf();
	target = spawn(target_argv, NULL, NULL);
	snprintf(pid_arg, sizeof(pid_arg), "%d", target);
	{
		char *argv[] = { (char *)heaptap_path(), "attach", "-p", pid_arg, "--json",
				 (char *)scratch_file("report.json", json, sizeof(json)), NULL };

		tracer = spawn(argv, scratch_file("out.txt", out, sizeof(out)),
			       scratch_file("err.txt", err, sizeof(err)));
	}
	expect_attached(tracer, target, err);
	kill(target, SIGUSR1);
	cr_assert(eq(int, wait_status(target, 60), 0));
	cr_assert(eq(int, wait_status(tracer, 30), 0), "heaptap: %s", slurp(err));
	check_owner(json, truth, true);
	expect_since_attaching(out, json, truth);
}

/* Past --live-blocks, blocks are counted and said, and what is kept stays exact. */
Test(owner, the_live_block_limit)
{
	char target[4096], json[256], text[256];
	char *argv[] = { (char *)heaptap_path(), "run", "--live-blocks", "40", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o",
			 (char *)scratch_file("report.txt", text, sizeof(text)), "--",
			 (char *)target_path("owner_truth", target, sizeof(target)),
			 "--leak-seconds", "1", NULL };
	json_object *report, *process, *live, *outstanding;
	long long blocks = 0;
	char *text_report;

	require_bpf();
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	report = load_json(json);
	process = json_object_array_get_idx(get(report, "processes"), 0);
	live = get(process, "live_blocks");
	outstanding = get(process, "outstanding");
	for (size_t i = 0; i < json_object_array_length(outstanding); i++)
		blocks += json_object_get_int64(get(json_object_array_get_idx(outstanding, i),
						    "blocks"));
	cr_expect(eq(i64, json_object_get_int64(get(live, "limit")), 40));
	cr_expect(le(i64, json_object_get_int64(get(live, "kept")), 40));
	cr_expect(eq(i64, blocks, json_object_get_int64(get(live, "kept"))));
	cr_expect(gt(i64, json_object_get_int64(get(get(live, "over_limit"), "blocks")), 0));
	text_report = slurp(text);
	cr_expect(text_report && strstr(text_report, "Past the limit of 40 live blocks"));
	free(text_report);
	json_object_put(report);
}

/*
 * The text report's first lines answer: the site the program counted most at its peak
 * leads the peak's sites, with those bytes; what is still held leads with the leak.
 */
Test(owner, summary_answers_first)
{
	char target[4096], json[256], truth_path[256], text_path[256], want[256], size[32];
	char *argv[] = { (char *)heaptap_path(), "run", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o",
			 (char *)scratch_file("report.txt", text_path, sizeof(text_path)), "--",
			 (char *)target_path("owner_truth", target, sizeof(target)), "--truth",
			 (char *)scratch_file("truth.json", truth_path, sizeof(truth_path)), NULL };
	json_object *truth;
	const char *top = NULL;
	long long top_bytes = -1;
	char *text, *peak, *end, *first;

	require_bpf();
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 60), 0));
	truth = load_json(truth_path);
	json_object_object_foreach(get(truth, "sites"), name, site) {
		long long b = json_object_get_int64(get(site, "peak_bytes"));

		if (b > top_bytes) {
			top = name;
			top_bytes = b;
		}
	}
	text = slurp(text_path);
	cr_assert(text != NULL && top != NULL);
	peak = strstr(text, "\nPeak: ");
	end = strstr(text, "\nAt the end: ");
	cr_assert(peak && end && peak < end, "%s", text);
	/* The peak's first site: the program's largest at its peak, in the first 12 lines. */
	first = strchr(peak + 1, '\n') + 1;
	snprintf(want, sizeof(want), "%s in ", size_of(top_bytes, size, sizeof(size)));
	cr_expect(strstr(first, want) && strstr(first, want) < strchr(first, '\n'),
		  "want %s first: %s", want, text);
	snprintf(want, sizeof(want), ": %s", top);
	cr_expect(strstr(first, want) && strstr(first, want) < strchr(first, '\n'),
		  "want %s first: %s", top, text);
	{
		int line = 1;

		for (const char *p = text; p < first; p++)
			line += *p == '\n';
		cr_expect(le(int, line, 12), "the peak's site on line %d", line);
	}
	/* What is still held: the one likely leak, leak_site, first. */
	first = strchr(end + 1, '\n') + 1;
	cr_expect(strstr(end, "; 1 likely leak ") && strstr(end, "; 1 likely leak ") < first,
		  "%s", text);
	cr_expect(strstr(first, ", likely leak growing ") && strstr(first, ": leak_site") &&
			  strstr(first, ": leak_site") < strchr(first, '\n'),
		  "%s", text);
	/* The summary: from the heading to the tables, at most a dozen lines. */
	{
		const char *head = strstr(text, "==== PID"), *tables = strstr(text, "\n----- ");
		int lines = 0;

		cr_assert(head && tables && head < tables, "%s", text);
		for (const char *p = head; p <= tables; p++)
			lines += *p == '\n';
		cr_expect(le(int, lines, 12), "a summary of %d lines: %s", lines, text);
	}
	json_object_put(truth);
	free(text);
}
