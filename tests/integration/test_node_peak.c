// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The node's peak against node_phases' truth: three ranks under run --follow, each holding
 * a base block throughout and a phase block in turn (freed before the next rank allocates
 * its own). The node's peak is the bases plus the largest phase, exactly, less than the sum
 * of the ranks' peaks; the sites that held it are that phase's and the three bases; the
 * job summary (text and --json) says the same.
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

TestSuite(node_peak, .timeout = 120);

#define RANKS 3

/* The node's site of pid whose frames name function: its bytes (-1: none). */
static long long site_bytes(json_object *sites, long long pid, const char *function)
{
	for (size_t i = 0; i < json_object_array_length(sites); i++) {
		json_object *s = json_object_array_get_idx(sites, i), *frames = get(s, "frames");

		if (json_object_get_int64(get(s, "pid")) != pid)
			continue;
		for (size_t f = 0; f < json_object_array_length(frames); f++) {
			if (!strcmp(json_object_get_string(get(json_object_array_get_idx(frames, f),
							       "function")), function))
				return json_object_get_int64(get(s, "bytes"));
		}
	}
	return -1;
}

/* The job summary of input (a report or a database): its one node, *sum to put. */
static json_object *summary_node(const char *input, json_object **sum)
{
	char summary[256];
	char *argv[] = { (char *)heaptap_path(), "report", (char *)input, "--json",
			 (char *)scratch_file("summary.json", summary, sizeof(summary)), NULL };

	cr_assert(eq(int, wait_status(spawn(argv, "/dev/null", NULL), 60), 0));
	*sum = load_json(summary);
	cr_assert(eq(sz, json_object_array_length(get(*sum, "nodes")), 1));
	return json_object_array_get_idx(get(*sum, "nodes"), 0);
}

Test(node_peak, the_sum_at_once_not_the_sum_of_peaks)
{
	char json[256], text[256], err[256], target[512], path[512];
	long long base[RANKS], phase[RANKS], pid[RANKS], want = 0, sum_of_peaks = 0;
	int largest = 0;
	json_object *report, *node, *peak, *sum, *n;
	char *out;

	require_bpf();
	{
		char *argv[] = { (char *)heaptap_path(), "run", "--follow", "--json",
				 (char *)scratch_file("report.json", json, sizeof(json)), "-o",
				 (char *)scratch_file("report.txt", text, sizeof(text)), "--",
				 (char *)target_path("node_phases", target, sizeof(target)),
				 (char *)scratch_dir(), NULL };

		cr_assert(eq(int, wait_status(spawn(argv, NULL, scratch_file("run.err", err,
									       sizeof(err))),
					      90), 0), "%s", slurp(err));
	}
	for (int r = 0; r < RANKS; r++) {
		json_object *truth;

		snprintf(path, sizeof(path), "%s/node-%d.json", scratch_dir(), r);
		truth = load_json(path);
		base[r] = json_object_get_int64(get(truth, "base_usable"));
		phase[r] = json_object_get_int64(get(truth, "phase_usable"));
		pid[r] = json_object_get_int64(get(truth, "pid"));
		json_object_put(truth);
		want += base[r];
		sum_of_peaks += base[r] + phase[r];
		if (phase[r] > phase[largest])
			largest = r;
	}
	want += phase[largest];

	report = load_json(json);
	node = get(report, "node");
	peak = get(node, "peak");
	cr_expect(eq(i64, json_object_get_int64(get(peak, "bytes")), want),
		  "the bases and the largest phase");
	cr_expect(eq(i64, json_object_get_int64(get(peak, "blocks")), RANKS + 1));
	cr_expect(eq(i64, json_object_get_int64(get(node, "sum_of_process_peaks")), sum_of_peaks));
	cr_expect(sum_of_peaks > want, "the truth's peaks came apart");
	cr_expect(eq(i64, json_object_get_int64(get(node, "bytes")), 0), "all freed at the end");
	cr_expect(eq(i64, site_bytes(get(peak, "sites"), pid[largest], "phase_site"),
		     phase[largest]));
	for (int r = 0; r < RANKS; r++) {
		cr_expect(eq(i64, site_bytes(get(peak, "sites"), pid[r], "base_site"), base[r]),
			  "rank %d's base", r);
		if (r != largest)
			cr_expect(eq(i64, site_bytes(get(peak, "sites"), pid[r], "phase_site"), -1),
				  "rank %d's phase was freed by then", r);
	}
	json_object_put(report);

	/* The summary, from the report, and at the end of the run's text. */
	n = summary_node(json, &sum);
	cr_expect(eq(i64, json_object_get_int64(get(get(n, "peak"), "bytes")), want));
	cr_expect(eq(i64, json_object_get_int64(get(n, "sum_of_rank_peaks")), sum_of_peaks));
	cr_expect(eq(i64, json_object_get_int64(get(json_object_array_get_idx(
				  get(get(n, "peak"), "sites"), 0), "rank")), largest),
		  "the largest site is the largest phase's rank's");
	json_object_put(sum);
	out = slurp(text);
	cr_expect(strstr(out, "Node peaks") != NULL, "%s", out);
	free(out);

	/* The page draws the node's peak in its summary. */
	{
		char html[256], dom[256], log[256];
		char *argv[] = { (char *)heaptap_path(), "report", json, "--html",
				 (char *)scratch_file("job.html", html, sizeof(html)), NULL };
		char *d;

		cr_assert(eq(int, wait_status(spawn(argv, "/dev/null", NULL), 60), 0));
		browser_dump_dom(html, scratch_file("job.dom", dom, sizeof(dom)),
				 scratch_file("dom.log", log, sizeof(log)), 60);
		{
			char first[512] = "";

			cr_expect(eq(sz, browser_console_lines(log, first, sizeof(first)), 0),
				  "the page's console: %s", first);
		}
		d = slurp(dom);
		cr_assert(d != NULL && strstr(d, "data-render-ms=") != NULL,
			  "the page's script did not finish: %.300s", d ? d : "(no DOM)");
		cr_expect(strstr(d, "Each node's peak") != NULL && strstr(d, "phase_site") != NULL,
			  "no node peak in the page");
		cr_expect(strstr(d, "data-nodes=\"1\"") != NULL, "no line of the node's sum");
		free(d);
	}
}

/*
 * Under agent, to a collector: the stored run has no events in order, only each rank's
 * samples, so the host's sum is taken at the sample times (resolution "samples"): it
 * holds the bases, and stays below the ranks' peaks added up.
 */
Test(node_peak, a_collectors_run_sums_the_samples)
{
	char db[256], err[256], target[512], path[512];
	long long bases = 0, sum_of_peaks = 0, got;
	struct collector_proc c;
	json_object *sum, *n;

	require_bpf();
	collector_start(&c, scratch_file("node.db", db, sizeof(db)), 0, NULL);
	{
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint,
				 "--follow", "-i", "0.05", "--",
				 (char *)target_path("node_phases", target, sizeof(target)),
				 (char *)scratch_dir(), NULL };

		cr_assert(eq(int, wait_status(spawn(argv, NULL, scratch_file("agent.err", err,
									       sizeof(err))),
					      90), 0), "%s", slurp(err));
	}
	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0), "%s", slurp(c.err));
	for (int r = 0; r < RANKS; r++) {
		json_object *truth;

		snprintf(path, sizeof(path), "%s/node-%d.json", scratch_dir(), r);
		truth = load_json(path);
		bases += json_object_get_int64(get(truth, "base_usable"));
		sum_of_peaks += json_object_get_int64(get(truth, "base_usable")) +
				json_object_get_int64(get(truth, "phase_usable"));
		json_object_put(truth);
	}
	n = summary_node(db, &sum);
	cr_expect(eq(str, (char *)json_object_get_string(get(n, "resolution")), "samples"));
	cr_expect(eq(i64, json_object_get_int64(get(n, "sum_of_rank_peaks")), sum_of_peaks));
	got = json_object_get_int64(get(get(n, "peak"), "bytes"));
	cr_expect(got >= bases && got < sum_of_peaks, "%lld: not within [%lld, %lld)", got, bases,
		  sum_of_peaks);
	json_object_put(sum);
}
