// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Who holds the memory, per rank, through agents and a collector: a 3-rank Open MPI job
 * of rank_sites, one agent per rank; each rank's stored outstanding, peak and allocated
 * sites equal what it counted itself, in heaptap report DB's JSON, text and folded stacks,
 * whole or --rank R.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "cluster.h"
#include "driver.h"

TestSuite(cluster_owner, .timeout = 300);

#define RANKS 3

/* The sites of list whose frames name function: how many, and the last one. */
static json_object *site_of(json_object *list, const char *function, int *found)
{
	json_object *site = NULL;

	*found = 0;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *s = json_object_array_get_idx(list, i), *frames = get(s, "frames");

		for (size_t f = 0; f < json_object_array_length(frames); f++) {
			json_object *frame = json_object_array_get_idx(frames, f);

			if (!strcmp(json_object_get_string(get(frame, "function")), function)) {
				site = s;
				(*found)++;
				break;
			}
		}
	}
	return site;
}

/* The site of list that function's blocks belong to holds exactly truth's blocks, bytes. */
static void expect_site(json_object *list, const char *function, json_object *truth,
			const char *what)
{
	int found;
	json_object *site = site_of(list, function, &found);

	cr_assert(eq(int, found, 1), "%s: %d sites of %s in %s", what, found, function,
		  json_object_to_json_string(list));
	cr_expect(eq(i64, json_object_get_int64(get(site, "blocks")),
		     json_object_get_int64(get(truth, "blocks"))), "%s: %s's blocks", what,
		  function);
	cr_expect(eq(i64, json_object_get_int64(get(site, "bytes")),
		     json_object_get_int64(get(truth, "bytes"))), "%s: %s's bytes", what,
		  function);
}

/* A stored rank's outstanding and peak sites equal its truth, owner-<rank>.json. */
static void expect_rank_matches(json_object *process, int rank)
{
	json_object *outstanding = get(process, "outstanding"), *peak = get(process, "peak");
	char path[512], what[64];
	json_object *truth;
	int found;

	snprintf(path, sizeof(path), "%s/owner-%d.json", scratch_dir(), rank);
	truth = load_json(path);
	snprintf(what, sizeof(what), "rank %d (holds skipped: %lld), outstanding", rank,
		 (long long)json_object_get_int64(get(process, "holds_skipped")));
	expect_site(outstanding, "leak_site", get(truth, "leak_site"), what);
	site_of(outstanding, "burst_site", &found);
	cr_expect(eq(int, found, 0), "rank %d: burst_site freed its blocks", rank);
	snprintf(what, sizeof(what), "rank %d, at the peak", rank);
	expect_site(get(peak, "sites"), "leak_site", get(truth, "leak_site"), what);
	expect_site(get(peak, "sites"), "burst_site", get(truth, "burst_site"), what);
	cr_expect(json_object_get_int64(get(peak, "bytes")) >=
			  json_object_get_int64(get(get(truth, "leak_site"), "bytes")) +
				  json_object_get_int64(get(get(truth, "burst_site"), "bytes")),
		  "rank %d: the peak's total holds both sites", rank);
	/* Every block each site allocated (one call each), burst_site's freed ones too. */
	snprintf(what, sizeof(what), "rank %d, allocated", rank);
	expect_site(get(process, "allocated"), "leak_site", get(truth, "leak_site"), what);
	expect_site(get(process, "allocated"), "burst_site", get(truth, "burst_site"), what);
	cr_expect(json_object_is_type(get(get(process, "freed_before_tracing"), "calls"),
				      json_type_int) &&
			  json_object_get_boolean(get(get(process, "freed_before_tracing"),
						      "bytes_known")),
		  "rank %d: frees before tracing sent, their bytes known under glibc", rank);
	json_object_put(truth);
}

/*
 * The job, its ranks' sites run once the collector stored all three (their agents in
 * place: on a loaded machine a rank could otherwise run before its probes).
 */
static void run_job(struct collector_proc *c)
{
	char target[512], err[256], go[256];
	char *argv[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3",
			 (char *)heaptap_path(), "agent", "--sample-bytes", "0",
			 "--collector", c->endpoint, "-i", "0.2",
			 "--", (char *)target_path("rank_sites", target, sizeof(target)),
			 "--truth-dir", (char *)scratch_dir(), "--go",
			 (char *)scratch_file("go", go, sizeof(go)), NULL };
	pid_t job = spawn(argv, NULL, scratch_file("mpirun.err", err, sizeof(err)));
	FILE *f;

	for (int tries = 0; tries < 600; tries++) {
		if (db_integer(c->db, "SELECT count(*) FROM processes") == RANKS)
			break;
		sleep_ms(100);
	}
	cr_expect(eq(i64, db_integer(c->db, "SELECT count(*) FROM processes"), RANKS));
	f = fopen(go, "w");
	cr_assert(f != NULL);
	fclose(f);
	cr_assert(eq(int, wait_status(job, 240), 0), "mpirun: %s", slurp(err));
}

/*
 * heaptap report DB --rank R [--site-depth N]: its exit status; its text in out, its errors
 * in err.
 */
static int report_rank_at(const char *db, const char *rank, const char *depth, char out[256],
			  char err[256])
{
	char *argv[] = { (char *)heaptap_path(), "report", (char *)db, "--rank", (char *)rank,
			 depth ? "--site-depth" : NULL, (char *)depth, NULL };

	return wait_status(spawn(argv, scratch_file("report.txt", out, 256),
				 scratch_file("report.err", err, 256)), 60);
}

static int report_rank(const char *db, const char *rank, char out[256], char err[256])
{
	return report_rank_at(db, rank, NULL, out, err);
}

/* In a site's short stack, the frame of function is followed by main's. */
static bool main_follows(const char *text, const char *function)
{
	char frame[128];
	const char *at, *end;

	snprintf(frame, sizeof(frame), "\n        %s (", function);
	at = strstr(text, frame);
	end = at ? strchr(at + 1, '\n') : NULL;
	return end && !strncmp(end, "\n        main (", 15);
}

/*
 * top --collector -b -n 1, while the collector runs: each rank's HELD and PEAK columns are
 * the owner totals it stored (exactly), which hold at least the rank's own sites.
 */
static void expect_live_totals(const struct collector_proc *c)
{
	char out[256], err[256], *text, *save = NULL;
	char *argv[] = { (char *)heaptap_path(), "top", "--collector", (char *)c->endpoint, "-b",
			 "-n", "1", NULL };
	int ranks = 0;

	cr_assert(eq(int, wait_status(spawn(argv, scratch_file("top.txt", out, sizeof(out)),
					    scratch_file("top.err", err, sizeof(err))), 30), 0),
		  "top --collector: %s", slurp(err));
	text = slurp(out);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char host[64], path[512], sql[160];
		long long rank, pid, held, peak;
		json_object *truth;

		if (sscanf(line, "%63s %lld %lld %*d %*d %lld %lld", host, &rank, &pid, &held,
			   &peak) != 5)
			continue; /* the run's line, the header */
		ranks++;
		snprintf(sql, sizeof(sql), "SELECT bytes FROM owner WHERE process = (SELECT id "
					   "FROM processes WHERE rank = %lld)", rank);
		cr_expect(eq(i64, held, db_integer(c->db, sql)), "rank %lld: %s", rank, line);
		snprintf(sql, sizeof(sql), "SELECT peak_bytes FROM owner WHERE process = (SELECT "
					   "id FROM processes WHERE rank = %lld)", rank);
		cr_expect(eq(i64, peak, db_integer(c->db, sql)), "rank %lld: %s", rank, line);
		snprintf(path, sizeof(path), "%s/owner-%lld.json", scratch_dir(), rank);
		truth = load_json(path);
		cr_expect(held >= json_object_get_int64(get(get(truth, "leak_site"), "bytes")),
			  "rank %lld holds its leak: %s", rank, line);
		cr_expect(peak >= json_object_get_int64(get(get(truth, "leak_site"), "bytes")) +
					  json_object_get_int64(get(get(truth, "burst_site"), "bytes")),
			  "rank %lld's peak holds both sites: %s", rank, line);
		json_object_put(truth);
	}
	cr_expect(eq(int, ranks, RANKS), "%s", slurp(out));
	free(text);
}

Test(cluster_owner, three_ranks_outstanding_and_peak)
{
	struct collector_proc c;
	json_object *report;
	char db[256], out[256], err[256], *text;

	require_bpf();
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0,
			(const char *const[]){ "--commit-every", "1", NULL });
	run_job(&c);
	expect_live_totals(&c);
	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0), "%s", slurp(c.err));

	report = stored_report(db, 0);
	cr_assert(eq(int, json_object_array_length(get(report, "processes")), RANKS));
	for (int rank = 0; rank < RANKS; rank++) {
		json_object *p = process_of_rank(report, rank);

		cr_assert(p != NULL, "no rank %d", rank);
		expect_rank_matches(p, rank);
	}
	json_object_put(report);
	cr_expect(db_integer(db, "SELECT count(DISTINCT process) FROM owner_sites") == RANKS);

	/* --rank 1: that rank only, with both sections. */
	cr_assert(eq(int, report_rank(db, "1", out, err), 0), "%s", slurp(err));
	text = slurp(out);
	cr_expect(strstr(text, "Still allocated at the end, by allocation site") != NULL, "%s",
		  text);
	cr_expect(strstr(text, "At the peak, by allocation site") != NULL, "%s", text);
	cr_expect(strstr(text, "leak_site") != NULL && strstr(text, "burst_site") != NULL, "%s",
		  text);
	cr_expect(eq(int, count_text(out, "Program name:"), 1), "%s", text);
	cr_expect(strstr(text, "rank: 1") != NULL, "%s", text);
	cr_expect(main_follows(text, "leak_site"), "6 frames a site: main's too:\n%s", text);
	free(text);

	/* --site-depth 1: a site's innermost frame outside the allocator only. */
	cr_assert(eq(int, report_rank_at(db, "1", "1", out, err), 0), "%s", slurp(err));
	text = slurp(out);
	cr_expect(strstr(text, "\n        leak_site (") != NULL, "%s", text);
	cr_expect(not(main_follows(text, "leak_site")), "1 frame a site:\n%s", text);
	free(text);

	/*
	 * Folded stacks of rank 2 from the database: leak_site's line weighs its bytes; by
	 * calls, burst_site's weighs the blocks it allocated (and freed).
	 */
	{
		char folded[256], calls[256], truth[512], *lines, *line;
		char *argv[] = { (char *)heaptap_path(), "report", db, "--rank", "2", "--folded",
				 (char *)scratch_file("rank2.folded", folded, sizeof(folded)), "-o",
				 "/dev/null", NULL };
		char *calls_argv[] = { (char *)heaptap_path(), "report", db, "--rank", "2",
				       "--folded-weight", "calls", "--folded",
				       (char *)scratch_file("calls.folded", calls, sizeof(calls)),
				       "-o", "/dev/null", NULL };
		json_object *t;

		cr_assert(eq(int, wait_status(spawn(argv, NULL, err), 60), 0), "%s", slurp(err));
		snprintf(truth, sizeof(truth), "%s/owner-2.json", scratch_dir());
		t = load_json(truth);
		lines = slurp(folded);
		line = strstr(lines, ";leak_site;");
		cr_assert(line != NULL, "%s", lines);
		cr_expect(eq(i64, strtoll(strchr(line, ' ') + 1, NULL, 10),
			     json_object_get_int64(get(get(t, "leak_site"), "bytes"))), "%s", lines);
		cr_expect(strstr(lines, "burst_site") == NULL, "%s", lines);
		free(lines);
		cr_assert(eq(int, wait_status(spawn(calls_argv, NULL, err), 60), 0), "%s",
			  slurp(err));
		lines = slurp(calls);
		line = strstr(lines, ";burst_site;");
		cr_assert(line != NULL, "%s", lines);
		cr_expect(eq(i64, strtoll(strchr(line, ' ') + 1, NULL, 10),
			     json_object_get_int64(get(get(t, "burst_site"), "blocks"))), "%s",
			  lines);
		free(lines);
		json_object_put(t);
	}

	/* A rank the run does not have: one line that says where to look. */
	cr_expect(eq(int, report_rank(db, "7", out, err), 2), "%s", slurp(err));
	text = slurp(err);
	cr_expect(strstr(text, "has no rank 7") != NULL, "%s", text);
	cr_expect(eq(int, count_text(err, "\n"), 1), "%s", text);
	free(text);
}
