// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap's /metrics as the real Prometheus server sees it: scraped, parsed, stored, and
 * read back through its query API, label values included, exactly as they were set.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "cluster.h"
#include "driver.h"
#include "metrics.h"
#include "prometheus.h"
#include "services.h"

TestSuite(prometheus, .timeout = 180);

static void expect_value(struct prometheus *p, const char *query, double want)
{
	double got;

	cr_expect(prometheus_wait_value(p, query, want, 30, &got, NULL),
		  "prometheus: %s is %g, want %g", query, got, want);
}

static void expect_label(json_object *labels, const char *name, const char *want)
{
	json_object *value = get_opt(labels, name);

	cr_expect(value && !strcmp(json_object_get_string(value), want),
		  "label %s: %s, want %s", name, value ? json_object_get_string(value) : "(none)",
		  want);
}

/* The registry alone, filled with known values, read back through Prometheus. */
Test(prometheus, reads_back_what_the_registry_holds)
{
	struct metrics *m = metrics__new();
	/* Names as agents may send them: quotes, backslashes, newlines, UTF-8. */
	struct metrics_who one = { .job = "4242", .host = "n\"01\\x", .rank = 1, .pid = 111 };
	struct metrics_who two = { .job = "4242", .host = "n02", .rank = 2, .pid = 222 };
	const char *library = "/opt/caf\xc3\xa9 lib/lib\"x\"\n.so";
	uint64_t calls[HT_NR_FUNCS] = { 1000, 20, 30, 4, 900, 5, 6, 7, 8, 9 };
	struct metrics_server *srv;
	struct prometheus *p;
	json_object *labels = NULL;
	char target[64], metrics_url[128], body[256], lint[256], query[256];
	double got;

	metrics__set_process(m, &one, 123456, 200000, calls);
	metrics__set_library(m, &one, library, 100000);
	metrics__set_library(m, &one, "/usr/lib/x86_64-linux-gnu/libc.so.6", 23456);
	calls[0] = 5;
	metrics__set_process(m, &two, -4096, 65536, calls);
	metrics__add(m, METRICS_MESSAGES, 17);
	metrics__observe_db_write(m, 0.002);
	srv = metrics_server__start(m, "127.0.0.1:0");
	cr_assert(srv != NULL, "cannot start the metrics server on 127.0.0.1");
	cr_assert(metrics_server__port(srv) > 0);
	snprintf(target, sizeof(target), "127.0.0.1:%d", metrics_server__port(srv));

	/* What is served passes Prometheus' own checker, as served. */
	snprintf(metrics_url, sizeof(metrics_url), "http://%s/metrics", target);
	cr_assert(eq(int, http_get(metrics_url, NULL, NULL, scratch_file("metrics.txt", body,
									     sizeof(body))),
		     0));
	{
		char cmd[1024];

		scratch_file("metrics.lint", lint, sizeof(lint));
		snprintf(cmd, sizeof(cmd), "promtool check metrics < %s > %s 2>&1", body, lint);
		cr_expect(eq(int, system(cmd), 0), "promtool check metrics: %s", slurp(lint));
	}
	snprintf(metrics_url, sizeof(metrics_url), "http://%s/other", target);
	cr_expect(eq(int, http_get(metrics_url, NULL, NULL, "/dev/null"), 22), "/other is a 404");

	p = prometheus_start((const char *const[]){ target, NULL });
	prometheus_wait_up(p, 30);
	cr_expect(prometheus_wait_value(p, "heaptap_current_bytes{job=\"4242\",rank=\"1\"}", 123456,
					30, &got, &labels),
		  "heaptap_current_bytes of rank 1: %g", got);
	expect_label(labels, "host", "n\"01\\x");
	expect_label(labels, "pid", "111");
	expect_label(labels, "job", "4242"); /* honor_labels: the process's job, not "heaptap" */
	expect_value(p, "heaptap_max_bytes{rank=\"1\"}", 200000);
	expect_value(p, "heaptap_current_bytes{rank=\"2\"}", -4096);
	expect_value(p, "heaptap_calls_total{rank=\"1\",op=\"malloc\"}", 1000);
	expect_value(p, "heaptap_calls_total{rank=\"2\",op=\"malloc\"}", 5);
	expect_value(p, "heaptap_calls_total{rank=\"2\",op=\"pvalloc\"}", 9);
	expect_value(p, "sum(heaptap_calls_total{rank=\"1\"})", 1000 + 20 + 30 + 4 + 900 + 5 + 6 +
								     7 + 8 + 9);
	snprintf(query, sizeof(query), "heaptap_library_current_bytes{rank=\"1\",library=\"%s\"}",
		 "/opt/caf\xc3\xa9 lib/lib\\\"x\\\"\\n.so");
	expect_value(p, query, 100000);
	expect_value(p, "sum(heaptap_library_current_bytes{rank=\"1\"})", 123456);
	expect_value(p, "heaptap_collector_messages_total", 17);
	expect_value(p, "heaptap_collector_db_write_seconds_count", 1);
	expect_value(p, "heaptap_collector_db_write_seconds_bucket{le=\"0.0025\"}", 1);
	expect_value(p, "heaptap_collector_db_write_seconds_bucket{le=\"0.001\"}", 0);

	/* A new value replaces the old one; a forgotten process goes stale. */
	metrics__set_process(m, &one, 777, 200000, calls);
	expect_value(p, "heaptap_current_bytes{rank=\"1\"}", 777);
	metrics__forget_process(m, &two);
	cr_expect(prometheus_wait_value(p, "count(heaptap_current_bytes{job=\"4242\"})", 1, 30,
					&got, NULL),
		  "the forgotten rank 2 is still there: %g series", got);

	prometheus_stop(p);
	metrics_server__stop(srv);
	json_object_put(labels);
	metrics__free(m);
}

#define RANKS 3

/* The agent's own /metrics, as served: Prometheus' checker passes it, and it has only the
 * processes' families, not the collector's health. */
static void expect_agent_metrics_page(const char *scrape)
{
	char url[128], body[256], lint[256], cmd[1024], *text;

	snprintf(url, sizeof(url), "http://%s/metrics", scrape);
	cr_assert(eq(int, http_get(url, NULL, NULL, scratch_file("agent-metrics.txt", body,
								 sizeof(body))), 0));
	scratch_file("agent-metrics.lint", lint, sizeof(lint));
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s > %s 2>&1", body, lint);
	cr_expect(eq(int, system(cmd), 0), "promtool check metrics: %s", slurp(lint));
	text = slurp(body);
	cr_expect(strstr(text, "heaptap_current_bytes{") != NULL, "no process series: %s", text);
	cr_expect(strstr(text, "heaptap_collector_") == NULL, "an agent has no collector health");
	free(text);
}

/*
 * The whole way: ranks of an Open MPI job traced by an agent, streamed to the collector,
 * served on its /metrics and on the agent's own (--metrics), both scraped by Prometheus and
 * read back through its query API while the ranks hold their memory: each rank's libgt
 * balance, from either, equals what the rank recorded.
 */
Test(prometheus, a_ranks_value_through_the_collector_and_from_its_agent)
{
	const char *const extra[] = { "--metrics", "127.0.0.1:0", NULL };
	struct collector_proc c;
	struct prometheus *p;
	char db[256], go[256], err[256], target[512], host[256], job[256] = "";
	char scrape[64], agent_scrape[64];
	pid_t agent;

	require_bpf();
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, extra);
	snprintf(scrape, sizeof(scrape), "127.0.0.1:%d", collector_metrics_port(&c));
	scratch_file("go", go, sizeof(go));
	{
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint, "-i",
				 "0.2", "--metrics", "127.0.0.1:0", "--mpi", "--", "mpirun",
				 "--allow-run-as-root", "--oversubscribe", "-np", "3",
				 (char *)target_path("mpi_workers", target, sizeof(target)),
				 "--truth-dir", (char *)scratch_dir(), "--hold", go, NULL };

		agent = spawn(argv, NULL, scratch_file("agent.err", err, sizeof(err)));
	}
	snprintf(agent_scrape, sizeof(agent_scrape), "127.0.0.1:%d",
		 announced_metrics_port(err, agent));
	p = prometheus_start((const char *const[]){ scrape, agent_scrape, NULL });
	prometheus_wait_up(p, 30);
	cr_assert(ranks_hold(RANKS, agent), "the ranks did not get to hold their memory: %s",
		  slurp(err));
	expect_agent_metrics_page(agent_scrape);
	gethostname(host, sizeof(host));
	for (int rank = 0; rank < RANKS; rank++) {
		char name[64], path[256], query[256];
		json_object *held, *labels = NULL;
		long long want;
		double got;

		snprintf(name, sizeof(name), "held-%d.json", rank);
		held = load_json(scratch_file(name, path, sizeof(path)));
		want = json_object_get_int64(get(get(held, "library"), "current"));
		cr_assert(want > 0, "rank %d holds nothing: the test would prove nothing", rank);
		snprintf(query, sizeof(query),
			 "heaptap_library_current_bytes{instance=\"%s\",rank=\"%d\","
			 "library=~\".*/libgt[.]so\"}", agent_scrape, rank);
		cr_expect(prometheus_wait_value(p, query, want, 60, &got, NULL),
			  "rank %d: the agent's endpoint has %g bytes of libgt.so, the rank holds "
			  "%lld", rank, got, want);
		snprintf(query, sizeof(query),
			 "heaptap_library_current_bytes{instance=\"%s\",rank=\"%d\","
			 "library=~\".*/libgt[.]so\"}", scrape, rank);
		cr_expect(prometheus_wait_value(p, query, want, 60, &got, &labels),
			  "rank %d: prometheus has %g bytes of libgt.so, the rank holds %lld", rank,
			  got, want);
		cr_expect(eq(str, (char *)json_object_get_string(get_opt(labels, "host")), host));
		/* One job for every rank, as Open MPI named it. */
		if (!job[0])
			snprintf(job, sizeof(job), "%s",
				 json_object_get_string(get(labels, "job")));
		cr_expect(job[0] && strcmp(job, json_object_get_string(get(labels, "job"))) == 0,
			  "rank %d: job %s, rank 0's %s", rank,
			  json_object_get_string(get(labels, "job")), job);
		json_object_put(labels);
		json_object_put(held);
	}
	/* The ranks exit: their series go (their figures stay in the database). */
	cr_assert(fclose(fopen(go, "w")) == 0);
	cr_expect(eq(int, wait_status(agent, 240), 0), "agent: %s", slurp(err));
	{
		double got;

		/* The agent's endpoint is gone with it: its series go stale too. */
		cr_expect(prometheus_wait_value(p, "count(heaptap_current_bytes) or vector(0)", 0,
						60, &got, NULL),
			  "%g processes still have series after the job ended", got);
	}
	prometheus_stop(p);
	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0), "%s", slurp(c.err));
}
