// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap report's job summary: a 3-rank job of rank_sites (ranks from the launcher's
 * environment, rank 1's burst 20 times larger) read as per-rank JSON files, as one
 * run --mpi report (of a launcher script, and of Open MPI's mpirun), and as a collector's
 * run. Each time the libraries' and functions'
 * min/median/max and rank_of_max equal what the ranks' own truth (owner-<rank>.json)
 * implies, rank 1 is the one outlier, and the text names every rank. Bad input: one line,
 * status 2.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "browser.h"
#include "cluster.h"
#include "driver.h"

TestSuite(summary, .timeout = 240);

#define RANKS 3
#define BIG_RANK "1"
#define JOB_ID "4242"

/* The figures a site implies in each rank, from its truth. */
struct site_truth {
	long long bytes[RANKS], blocks[RANKS];
};

static void load_truth(const char *site, struct site_truth *t)
{
	for (int rank = 0; rank < RANKS; rank++) {
		char name[64], path[512];
		json_object *truth;

		snprintf(name, sizeof(name), "owner-%d.json", rank);
		truth = load_json(scratch_file(name, path, sizeof(path)));
		t->bytes[rank] = json_object_get_int64(get(get(truth, site), "bytes"));
		t->blocks[rank] = json_object_get_int64(get(get(truth, site), "blocks"));
		json_object_put(truth);
	}
}

/* STAT = {min, median, max, rank_of_max} of three ranks' values. */
static void expect_stat(json_object *stat, const long long v[RANKS], const char *what)
{
	long long lo = v[0], hi = v[0], mid;
	int of_max = 0;

	for (int r = 1; r < RANKS; r++) {
		if (v[r] < lo)
			lo = v[r];
		if (v[r] > hi) {
			hi = v[r];
			of_max = r;
		}
	}
	mid = v[0] + v[1] + v[2] - lo - hi;
	cr_expect(eq(i64, json_object_get_int64(get(stat, "min")), lo), "%s: min", what);
	cr_expect(eq(i64, json_object_get_int64(get(stat, "median")), mid), "%s: median", what);
	cr_expect(eq(i64, json_object_get_int64(get(stat, "max")), hi), "%s: max", what);
	cr_expect(eq(int, json_object_get_int(get(stat, "rank_of_max")), of_max),
		  "%s: rank_of_max", what);
}

static json_object *function_row(json_object *summary, const char *function)
{
	json_object *found = find_by_str(get(summary, "functions"), "function", function);

	cr_assert(found != NULL, "no %s in the summary's functions", function);
	return found;
}

/*
 * The summary (--json) against the truth: leak_site holds its blocks to the end, burst_site
 * held its blocks at the peak and freed them; rank 1's burst makes it the outlier.
 */
static void expect_summary_matches_truth(json_object *summary, const char *source)
{
	struct site_truth leak, burst;
	long long zero[RANKS] = { 0 }, leak_calls[RANKS], burst_calls[RANKS];
	json_object *row, *outliers, *detail, *hosts;
	char what[128], host[256];
	bool here;

	load_truth("leak_site", &leak);
	load_truth("burst_site", &burst);
	/* The job is what the test meant: rank 1's burst is larger than the others' peaks. */
	cr_assert(burst.bytes[1] > 5 * (burst.bytes[0] + leak.bytes[0]) &&
		  burst.bytes[1] > 5 * (burst.bytes[2] + leak.bytes[2]));
	for (int r = 0; r < RANKS; r++) {
		leak_calls[r] = leak.blocks[r];      /* malloc only */
		burst_calls[r] = 2 * burst.blocks[r]; /* malloc and free */
	}
	cr_expect(eq(int, json_object_get_int(get(summary, "heaptap_summary")), 1));
	cr_expect(eq(int, json_object_get_int(get(summary, "ranks")), RANKS), "%s", source);
	cr_expect(json_object_get_boolean(get(summary, "mpi")));
	/* Every rank ran here, whichever heaptap traced it. */
	cr_assert(eq(int, gethostname(host, sizeof(host)), 0));
	hosts = get(summary, "hosts");
	here = hosts && json_object_array_length(hosts) == 1 &&
	       !strcmp(json_object_get_string(json_object_array_get_idx(hosts, 0)), host);
	cr_expect(here, "%s: hosts %s, not this machine's %s", source,
		  json_object_get_string(hosts), host);
	row = function_row(summary, "leak_site");
	snprintf(what, sizeof(what), "%s, leak_site current", source);
	expect_stat(get(row, "current"), leak.bytes, what);
	snprintf(what, sizeof(what), "%s, leak_site max", source);
	expect_stat(get(row, "max"), leak.bytes, what);
	snprintf(what, sizeof(what), "%s, leak_site calls", source);
	expect_stat(get(row, "calls"), leak_calls, what);
	row = function_row(summary, "burst_site");
	snprintf(what, sizeof(what), "%s, burst_site current", source);
	expect_stat(get(row, "current"), zero, what);
	snprintf(what, sizeof(what), "%s, burst_site max", source);
	expect_stat(get(row, "max"), burst.bytes, what);
	snprintf(what, sizeof(what), "%s, burst_site calls", source);
	expect_stat(get(row, "calls"), burst_calls, what);
	/* burst_site holds the largest max of all: the first row. */
	cr_expect(eq(str, (char *)json_object_get_string(get(json_object_array_get_idx(
				  get(summary, "functions"), 0), "function")), "burst_site"),
		  "%s: the functions sorted by their largest max", source);
	cr_expect(eq(int, json_object_get_int(get(get(get(summary, "total"), "max"),
						   "rank_of_max")), 1), "%s: the biggest peak", source);
	outliers = get(summary, "outliers");
	cr_expect(eq(sz, json_object_array_length(outliers), 1), "%s: outliers %s", source,
		  json_object_to_json_string(outliers));
	cr_expect(eq(int, json_object_get_int(get(json_object_array_get_idx(outliers, 0), "rank")),
		     1), "%s: the outlier", source);
	detail = get(summary, "ranks_detail");
	cr_assert(eq(sz, json_object_array_length(detail), RANKS));
	for (int r = 0; r < RANKS; r++) {
		json_object *rank = json_object_array_get_idx(detail, r), *samples, *last;
		size_t n;

		cr_expect(eq(int, json_object_get_int(get(rank, "rank")), r));
		cr_expect(eq(int, json_object_get_boolean(get(rank, "outlier")), r == 1));
		/* Its peak holds both sites at once. */
		cr_expect(json_object_get_int64(get(rank, "max")) >= leak.bytes[r] + burst.bytes[r],
			  "%s: rank %d's peak", source, r);
		/* The series ends with the rank's last figures. */
		samples = get(rank, "samples");
		n = json_object_array_length(samples);
		cr_assert(n >= 1, "%s: rank %d has no samples", source, r);
		last = json_object_array_get_idx(samples, n - 1);
		cr_expect(eq(i64, json_object_get_int64(json_object_array_get_idx(last, 1)),
			     json_object_get_int64(get(rank, "current"))),
			  "%s: rank %d's last sample's current", source, r);
		cr_expect(eq(i64, json_object_get_int64(json_object_array_get_idx(last, 2)),
			     json_object_get_int64(get(rank, "max"))),
			  "%s: rank %d's last sample's max", source, r);
	}
}

/* The owner view's peaks: the biggest rank peak first, burst_site its largest site. */
static void expect_peaks(json_object *summary, const char *source)
{
	json_object *peaks = get(summary, "peaks"), *first, *site, *frames;
	struct site_truth burst;
	bool named = false;

	load_truth("burst_site", &burst);
	cr_assert(eq(sz, json_object_array_length(peaks), RANKS), "%s", source);
	first = json_object_array_get_idx(peaks, 0);
	cr_expect(eq(int, json_object_get_int(get(first, "rank")), 1), "%s", source);
	site = json_object_array_get_idx(get(first, "sites"), 0);
	cr_assert(site != NULL);
	cr_expect(eq(i64, json_object_get_int64(get(site, "bytes")), burst.bytes[1]), "%s",
		  source);
	frames = get(site, "frames");
	for (size_t i = 0; i < json_object_array_length(frames); i++)
		named |= !strcmp(json_object_get_string(get(json_object_array_get_idx(frames, i),
							     "function")), "burst_site");
	cr_expect(named, "%s: rank 1's peak site is burst_site's", source);
}

/* heaptap report ARGS... --json S -o T: its status; the summary parsed, the text in text. */
static json_object *summarize(char *const inputs[], const char *extra, char **text)
{
	char json[256], out[256], err[256];
	char *argv[16] = { (char *)heaptap_path(), "report" };
	int argc = 2, status;

	for (int i = 0; inputs[i]; i++)
		argv[argc++] = inputs[i];
	if (extra)
		argv[argc++] = (char *)extra;
	argv[argc++] = "--json";
	argv[argc++] = (char *)scratch_file("summary.json", json, sizeof(json));
	argv[argc++] = "-o";
	argv[argc++] = (char *)scratch_file("summary.txt", out, sizeof(out));
	argv[argc] = NULL;
	status = wait_status(spawn(argv, NULL, scratch_file("summary.err", err, sizeof(err))), 60);
	cr_assert(eq(int, status, 0), "heaptap report: %s", slurp(err));
	*text = slurp(out);
	return load_json(json);
}

/* The text: the summary, every rank on its line, the outlier named. */
static void expect_text(const char *text, json_object *summary)
{
	json_object *detail = get(summary, "ranks_detail");

	cr_expect(eq(int, lines_with(text, "heaptap job summary", NULL), 1), "%s", text);
	cr_expect(eq(int, lines_with(text, "Outliers", "rank 1 (peak"), 1), "%s", text);
	for (size_t i = 0; i < json_object_array_length(detail); i++) {
		json_object *r = json_object_array_get_idx(detail, i);
		char line[64];

		snprintf(line, sizeof(line), "%6d %8d ", json_object_get_int(get(r, "rank")),
			 json_object_get_int(get(r, "pid")));
		cr_expect(eq(int, lines_with(text, line, NULL), 1), "rank %zu: %s", i, text);
	}
	cr_expect(eq(int, lines_with(text, "burst_site (rank_sites)", NULL), 1), "%s", text);
}

/* The environment of rank r of job JOB_ID, as Open MPI's launcher sets it. */
static void rank_environment(int r, char rank[32], char *env[4])
{
	snprintf(rank, 32, "OMPI_COMM_WORLD_RANK=%d", r);
	env[0] = rank;
	env[1] = "OMPI_COMM_WORLD_SIZE=3";
	env[2] = "OMPI_MCA_ess_base_jobid=" JOB_ID;
	env[3] = NULL;
}

Test(summary, per_rank_json_files)
{
	char target[512], paths[RANKS][256], errs[RANKS][256], rank_env[RANKS][32];
	char *inputs[RANKS + 1] = { NULL }, *text;
	pid_t pids[RANKS];
	json_object *summary;

	require_bpf();
	for (int r = 0; r < RANKS; r++) {
		char name[32], *env[4];

		rank_environment(r, rank_env[r], env);
		snprintf(name, sizeof(name), "rank-%d.json", r);
		scratch_file(name, paths[r], sizeof(paths[r]));
		snprintf(name, sizeof(name), "rank-%d.err", r);
		char *argv[] = { "env", env[0], env[1], env[2], (char *)heaptap_path(), "run",
				 "-a", "caller", "-i", "0.2", "--json", paths[r], "-o", "/dev/null",
				 "--", (char *)target_path("rank_sites", target, sizeof(target)),
				 "--truth-dir", (char *)scratch_dir(), "--big-rank", BIG_RANK, NULL };
		pids[r] = spawn(argv, NULL, scratch_file(name, errs[r], sizeof(errs[r])));
		inputs[r] = paths[r];
	}
	for (int r = 0; r < RANKS; r++)
		cr_assert(eq(int, wait_status(pids[r], 90), 0), "rank %d: %s", r, slurp(errs[r]));
	summary = summarize(inputs, NULL, &text);
	expect_summary_matches_truth(summary, "per-rank files");
	expect_peaks(summary, "per-rank files");
	expect_text(text, summary);
	cr_expect(eq(str, (char *)json_object_get_string(get(summary, "job")), JOB_ID));
	cr_expect(eq(sz, json_object_array_length(get(summary, "files")), RANKS));
	free(text);
	json_object_put(summary);

	/* --rank 2: that rank's own report, DMATP's sections. */
	{
		char out[256], err[256];
		char *argv[] = { (char *)heaptap_path(), "report", paths[0], paths[1], paths[2],
				 "--rank", "2", NULL };
		struct site_truth leak;
		char expect[128];

		cr_assert(eq(int, wait_status(spawn(argv, scratch_file("rank2.txt", out, sizeof(out)),
						    scratch_file("rank2.err", err, sizeof(err))), 30), 0),
			  "%s", slurp(err));
		text = slurp(out);
		load_truth("leak_site", &leak);
		cr_expect(eq(int, lines_with(text, ", rank: 2 of 3", NULL), 1), "%s", text);
		cr_expect(eq(int, lines_with(text, "Function: leak_site", NULL), 1), "%s", text);
		snprintf(expect, sizeof(expect), "mem_size = %lld, mem_min = 0, mem_max = %lld,",
			 leak.bytes[2], leak.bytes[2]);
		cr_expect(eq(int, lines_with(text, expect, NULL), 1), "%s in %s", expect, text);
		free(text);
	}
}

Test(summary, one_run_mpi_report)
{
	char target[512], script[2048], json[256], err[256], *text;
	char *inputs[] = { json, NULL };
	json_object *summary;

	require_bpf();
	/* A launcher that sets each rank's environment, as mpirun does. */
	snprintf(script, sizeof(script),
		 "for r in 0 1 2; do OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=3 "
		 "OMPI_MCA_ess_base_jobid=" JOB_ID " %s --truth-dir %s --big-rank " BIG_RANK
		 " & done; wait",
		 target_path("rank_sites", target, sizeof(target)), scratch_dir());
	{
		char *argv[] = { (char *)heaptap_path(), "run", "--mpi", "-a", "caller", "-i", "0.2",
				 "--json", (char *)scratch_file("job.json", json, sizeof(json)), "-o",
				 "/dev/null", "--", "sh", "-c", script, NULL };

		cr_assert(eq(int, wait_status(spawn(argv, NULL, scratch_file("run.err", err,
									     sizeof(err))), 90), 0),
			  "%s", slurp(err));
	}
	summary = summarize(inputs, NULL, &text);
	expect_summary_matches_truth(summary, "run --mpi");
	expect_peaks(summary, "run --mpi");
	expect_text(text, summary);
	free(text);
	json_object_put(summary);
}

/*
 * report --html of a database's run, opened in headless chromium: a line per rank over
 * time from the samples the agent sent, each rank's own report, no console message.
 */
static void expect_page_of_database(const char *db)
{
	char page[256], dom[256], log[256], err[256], want[64], *d;
	char *argv[] = { (char *)heaptap_path(), "report", (char *)db, "--html", page, NULL };

	scratch_file("job.html", page, sizeof(page));
	cr_assert(eq(int, wait_status(spawn(argv, NULL, scratch_file("html.err", err, sizeof(err))),
				      30), 0), "report --html: %s", slurp(err));
	browser_dump_dom(page, scratch_file("job.dom", dom, sizeof(dom)),
			 scratch_file("job.log", log, sizeof(log)), 60);
	cr_expect(eq(sz, browser_console_lines(log, NULL, 0), 0), "console: %s", slurp(log));
	d = slurp(dom);
	cr_assert(d != NULL);
	snprintf(want, sizeof(want), "data-mode=\"lines\" data-series=\"%d\"", RANKS);
	cr_expect(strstr(d, want) != NULL, "the page's plot over time has not %d lines", RANKS);
	for (int r = 0; r < RANKS; r++) {
		snprintf(want, sizeof(want), "data-rank=\"%d\"", r);
		cr_expect(strstr(d, want) != NULL, "no button for rank %d", r);
	}
	free(d);
	d = slurp(page);
	snprintf(want, sizeof(want), "rank: %s of %d", BIG_RANK, RANKS);
	cr_expect(strstr(d, want) != NULL, "rank %s's own report is not in the page", BIG_RANK);
	free(d);
}

/* The same job under Open MPI's mpirun: its own processes are no ranks. */
Test(summary, an_mpirun_job)
{
	char target[512], json[256], err[256], *text;
	char *inputs[] = { json, NULL };
	json_object *summary;

	require_bpf();
	{
		char *argv[] = { (char *)heaptap_path(), "run", "--mpi", "-a", "caller", "-i", "0.2",
				 "--json", (char *)scratch_file("job.json", json, sizeof(json)), "-o",
				 "/dev/null", "--", "mpirun", "--allow-run-as-root", "--oversubscribe",
				 "-np", "3", (char *)target_path("rank_sites", target, sizeof(target)),
				 "--truth-dir", (char *)scratch_dir(), "--big-rank", BIG_RANK, NULL };

		cr_assert(eq(int, wait_status(spawn(argv, NULL, scratch_file("run.err", err,
									     sizeof(err))), 120), 0),
			  "%s", slurp(err));
	}
	summary = summarize(inputs, NULL, &text);
	expect_summary_matches_truth(summary, "mpirun");
	expect_peaks(summary, "mpirun");
	expect_text(text, summary);
	cr_expect(eq(int, json_object_get_int(get(summary, "world_size")), RANKS));
	free(text);
	json_object_put(summary);
}

Test(summary, a_collectors_run)
{
	struct collector_proc c;
	char target[512], db[256], err[256], script[2048], *text;
	char *inputs[] = { db, NULL };
	json_object *summary;
	pid_t agent;

	require_bpf();
	collector_start(&c, scratch_file("runs.sqlite", db, sizeof(db)), 0, NULL);
	/*
	 * One agent for the node, its ranks started by a launcher as mpirun would; each rank
	 * held at its exec until probed, then its sites run (rank_sites waits for the probes).
	 */
	snprintf(script, sizeof(script),
		 "for r in 0 1 2; do OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=3 "
		 "OMPI_MCA_ess_base_jobid=" JOB_ID " %s --truth-dir %s --big-rank " BIG_RANK
		 " & done; wait",
		 target_path("rank_sites", target, sizeof(target)), scratch_dir());
	{
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint,
				 "--mpi", "-a", "caller", "-i", "0.2", "--", "sh", "-c", script,
				 NULL };

		agent = spawn(argv, NULL, scratch_file("agent.err", err, sizeof(err)));
	}
	cr_assert(eq(int, wait_status(agent, 90), 0), "agent: %s", slurp(err));
	cr_assert(eq(int, collector_stop(&c, SIGTERM), 0), "%s", slurp(c.err));
	summary = summarize(inputs, NULL, &text);
	expect_summary_matches_truth(summary, "database");
	expect_peaks(summary, "database");
	expect_text(text, summary);
	cr_expect(json_object_get_int64(get(summary, "run")) > 0);
	cr_expect(eq(sz, json_object_array_length(get(summary, "hosts")), 1),
		  "the agent's host");
	free(text);
	json_object_put(summary);
	expect_page_of_database(db);
}

/* heaptap report ARGV...: status 2 and one line on standard error holding want. */
static void expect_refused(char *const inputs[], const char *want)
{
	char err[256], *text;
	char *argv[16] = { (char *)heaptap_path(), "report" };
	int argc = 2;

	for (int i = 0; inputs[i]; i++)
		argv[argc++] = inputs[i];
	argv[argc] = NULL;
	cr_expect(eq(int, wait_status(spawn(argv, NULL, scratch_file("bad.err", err, sizeof(err))),
				      30), 2), "%s", inputs[0]);
	text = slurp(err);
	cr_expect(eq(int, lines_with(text, want, NULL), 1), "want '%s' in: %s", want, text);
	cr_expect(eq(int, lines_with(text, "", NULL), 1), "one line: %s", text);
	free(text);
}

static void write_file(const char *name, const char *text, char path[256])
{
	FILE *f = fopen(scratch_file(name, path, 256), "w");

	cr_assert(f != NULL);
	fputs(text, f);
	fclose(f);
}

#define BAL "\"current\": 1, \"min\": 0, \"max\": 2, \"requested\": 1, \"calls\": {\"malloc\": 1}"

/* A rank's report of one process, of job job. */
static void write_rank(const char *name, int rank, const char *job, char path[256])
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "{\"heaptap\": 1, \"attribution\": \"entry\", \"processes\": [{\"pid\": %d, "
		 "\"rank\": %d, \"world_size\": 2, \"job\": \"%s\", \"command\": \"app\", "
		 "\"total\": {" BAL "}, \"functions\": [{\"function\": \"f\", \"library\": "
		 "\"/lib/a.so\", " BAL "}]}]}\n",
		 100 + rank, rank, job);
	write_file(name, text, path);
}

Test(summary, bad_input)
{
	char truncated[256], other[256], rank0[256], rank1[256], job2[256], again[256];
	char empty[256], *text;
	struct collector_proc c;

	write_rank("rank0.json", 0, "7", rank0);
	write_rank("rank1.json", 1, "7", rank1);
	write_rank("job2.json", 1, "8", job2);
	write_rank("again.json", 0, "7", again);
	text = slurp(rank0);
	text[strlen(text) / 2] = '\0';
	write_file("truncated.json", text, truncated);
	free(text);
	write_file("other.json", "{\"heaptap_compare\": 1, \"functions\": []}\n", other);

	/* The good pair is read, so that what the others lack is what is refused. */
	{
		char *argv[] = { (char *)heaptap_path(), "report", rank0, rank1, NULL };

		cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 30), 0));
	}
	expect_refused((char *[]){ truncated, NULL }, "cannot read");
	expect_refused((char *[]){ rank0, truncated, NULL }, "truncated.json");
	expect_refused((char *[]){ other, NULL }, "is not a heaptap report");
	expect_refused((char *[]){ rank0, job2, NULL }, "give the reports of one job");
	expect_refused((char *[]){ rank0, again, NULL }, "both hold rank 0");
	expect_refused((char *[]){ rank0, rank1, "--rank", "5", NULL }, "no rank 5");
	{
		char same[256];

		scratch_file("same.out", same, sizeof(same));
		expect_refused((char *[]){ rank0, "-o", same, "--html", same, NULL },
			       "name the same file");
	}

	/* A database a collector made and stored nothing in; and a run it does not have. */
	collector_start(&c, scratch_file("empty.sqlite", empty, sizeof(empty)), 0, NULL);
	cr_assert(eq(int, collector_stop(&c, SIGTERM), 0), "%s", slurp(c.err));
	expect_refused((char *[]){ empty, NULL }, "holds no run yet");
	expect_refused((char *[]){ empty, "--run", "12", NULL }, "has no run 12");
	expect_refused((char *[]){ empty, rank0, NULL }, "is a database");
}

/*
 * attach samples the total every -i seconds: a rank that leaks a block every 50 ms is
 * seen to grow, sample after sample, and its series ends with its report's total.
 */
Test(summary, attach_samples_a_growing_rank)
{
	char target[512], truth[256], stop[256], go[256], json[256], err[256], pid_arg[16];
	char *target_argv[] = { "env", "OMPI_COMM_WORLD_RANK=0",
				(char *)target_path("rank_sites", target, sizeof(target)),
				"--truth-dir", (char *)scratch_dir(), "--hold",
				(char *)scratch_file("stop", stop, sizeof(stop)), "--drip", "--go",
				(char *)scratch_file("go", go, sizeof(go)), NULL };
	json_object *report, *process, *samples, *total;
	pid_t rank, tracer;
	size_t n;
	FILE *f;

	require_bpf();
	/* Its sites at once (not waiting for probes): attach comes while it drips. */
	f = fopen(go, "w");
	cr_assert(f != NULL);
	fclose(f);
	rank = spawn(target_argv, NULL, NULL);
	cr_assert(wait_for_text(scratch_file("owner-0.json", truth, sizeof(truth)), "drip_site",
				30), "the rank never wrote its truth");
	snprintf(pid_arg, sizeof(pid_arg), "%d", rank);
	{
		char *argv[] = { (char *)heaptap_path(), "attach", "-p", pid_arg, "-i", "0.2",
				 "-d", "2", "--json",
				 (char *)scratch_file("attach.json", json, sizeof(json)), "-o",
				 "/dev/null", NULL };

		tracer = spawn(argv, NULL, scratch_file("attach.err", err, sizeof(err)));
	}
	cr_assert(eq(int, wait_status(tracer, 60), 0), "%s", slurp(err));
	f = fopen(stop, "w");
	cr_assert(f != NULL);
	fclose(f);
	cr_assert(eq(int, wait_status(rank, 30), 0));
	report = load_json(json);
	process = json_object_array_get_idx(get(report, "processes"), 0);
	samples = get(process, "samples");
	total = get(process, "total");
	n = json_object_array_length(samples);
	/* 2 s at 0.2 s: about 10 beats once attached; a loaded machine may miss some. */
	cr_assert(n >= 4, "%zu samples: %s", n, json_object_to_json_string(samples));
	for (size_t i = 1; i < n; i++) {
		json_object *a = json_object_array_get_idx(samples, i - 1);
		json_object *b = json_object_array_get_idx(samples, i);

		cr_expect(json_object_get_double(json_object_array_get_idx(b, 0)) >
				  json_object_get_double(json_object_array_get_idx(a, 0)),
			  "in time order");
		cr_expect(json_object_get_int64(json_object_array_get_idx(b, 1)) >=
				  json_object_get_int64(json_object_array_get_idx(a, 1)),
			  "a rank that only leaks never holds less: %s",
			  json_object_to_json_string(samples));
	}
	cr_expect(json_object_get_int64(json_object_array_get_idx(
			  json_object_array_get_idx(samples, n - 1), 1)) >
			  json_object_get_int64(json_object_array_get_idx(
				  json_object_array_get_idx(samples, 0), 1)),
		  "it grew: %s", json_object_to_json_string(samples));
	cr_expect(eq(i64, json_object_get_int64(json_object_array_get_idx(
				  json_object_array_get_idx(samples, n - 1), 1)),
		     json_object_get_int64(get(total, "current"))), "the series ends at the total");
	cr_expect(eq(i64, json_object_get_int64(json_object_array_get_idx(
				  json_object_array_get_idx(samples, n - 1), 2)),
		     json_object_get_int64(get(total, "max"))));
	json_object_put(report);
}
