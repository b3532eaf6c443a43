// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The metrics registry as Prometheus reads it: the text exposition format, label values
 * escaped whatever bytes the agents send, and Prometheus' own linter (promtool) content.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "metrics.h"

TestSuite(metrics);

static const uint64_t some_calls[HT_NR_FUNCS] = { 11, 2, 3, 0, 9, 0, 1, 0, 0, 0 };

static char *render(struct metrics *m)
{
	size_t len;
	char *text = metrics__render(m, &len);

	cr_assert(text != NULL, "render failed");
	cr_assert(eq(sz, strlen(text), len));
	cr_assert(len > 0 && text[len - 1] == '\n', "the exposition must end in a newline");
	return text;
}

/* The line of text that begins with prefix (a series and its labels), or fail. */
static const char *line_of(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, prefix, n))
			return p;
	}
	cr_fatal("no line begins with %s in:\n%s", prefix, text);
	return NULL;
}

static long long value_of(const char *text, const char *series)
{
	const char *line = line_of(text, series);

	cr_assert(eq(chr, line[strlen(series)], ' '), "%s: no value", series);
	return strtoll(line + strlen(series) + 1, NULL, 10);
}

Test(metrics, a_process_and_its_libraries)
{
	struct metrics *m = metrics__new();
	struct metrics_who who = { .job = "4242", .host = "n01", .rank = 3, .pid = 1234 };
	char *text;

	metrics__set_process(m, &who, 4096, 8192, some_calls);
	metrics__set_library(m, &who, "/usr/lib/libmpi.so.40", 3000);
	metrics__set_library(m, &who, "/usr/lib/libc.so.6", 1096);
	metrics__set_library(m, &who, "/usr/lib/libmpi.so.40", 2500); /* an update, not a new one */
	text = render(m);
	cr_expect(eq(i64, value_of(text, "heaptap_current_bytes{job=\"4242\",host=\"n01\","
					 "rank=\"3\",pid=\"1234\"}"), 4096));
	cr_expect(eq(i64, value_of(text, "heaptap_max_bytes{job=\"4242\",host=\"n01\",rank=\"3\","
					 "pid=\"1234\"}"), 8192));
	for (int f = 0; f < HT_NR_FUNCS; f++) {
		char series[256];

		snprintf(series, sizeof(series),
			 "heaptap_calls_total{job=\"4242\",host=\"n01\",rank=\"3\",pid=\"1234\","
			 "op=\"%s\"}", ht_func_names[f]);
		cr_expect(eq(i64, value_of(text, series), (long long)some_calls[f]), "%s", series);
	}
	cr_expect(eq(i64,
		     value_of(text, "heaptap_library_current_bytes{job=\"4242\",host=\"n01\","
				    "rank=\"3\",pid=\"1234\",library=\"/usr/lib/libmpi.so.40\"}"),
		     2500));
	cr_expect(eq(i64, value_of(text, "heaptap_library_current_bytes{job=\"4242\",host=\"n01\","
					 "rank=\"3\",pid=\"1234\",library=\"/usr/lib/libc.so.6\"}"),
		     1096));
	/* An update replaces the library's value: one series for it, not two. */
	cr_expect(eq(ptr, (void *)strstr(strstr(text, "libmpi.so.40") + 1, "libmpi.so.40"), NULL));
	cr_expect(eq(i64, value_of(text, "heaptap_collector_processes"), 1));
	free(text);
	metrics__free(m);
}

Test(metrics, each_family_once_with_help_and_type_and_its_samples_together)
{
	struct metrics *m = metrics__new();
	struct metrics_who a = { .job = "1", .host = "n01", .rank = 0, .pid = 10 };
	struct metrics_who b = { .job = "1", .host = "n02", .rank = 1, .pid = 20 };
	const char *families[] = { "heaptap_current_bytes", "heaptap_max_bytes",
				   "heaptap_calls_total", "heaptap_library_current_bytes" };
	char *text;

	metrics__set_library(m, &a, "liba", 1);
	metrics__set_process(m, &a, 1, 2, some_calls);
	metrics__set_process(m, &b, 3, 4, some_calls);
	metrics__set_library(m, &b, "libb", 3);
	text = render(m);
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		char help[128], type[128], sample[128];
		const char *h, *t, *first, *last = NULL, *next_family;

		snprintf(help, sizeof(help), "# HELP %s ", families[i]);
		snprintf(type, sizeof(type), "# TYPE %s ", families[i]);
		snprintf(sample, sizeof(sample), "\n%s{", families[i]);
		h = line_of(text, help);
		t = line_of(text, type);
		cr_expect(eq(ptr, (void *)strstr(h + 1, help), NULL), "two HELP for %s",
			  families[i]);
		cr_expect(t > h, "%s: TYPE before HELP", families[i]);
		first = strstr(text, sample);
		cr_assert(first != NULL && first > t, "%s: no sample after its TYPE", families[i]);
		for (const char *s = first; s; s = strstr(s + 1, sample))
			last = s;
		next_family = strstr(t, "\n# HELP ");
		cr_expect(next_family == NULL || last < next_family,
			  "%s: a sample outside its family", families[i]);
	}
	free(text);
	metrics__free(m);
}

Test(metrics, label_values_are_escaped)
{
	struct metrics *m = metrics__new();
	struct metrics_who who = { .job = "a\"b\\c\nd", .host = "h\\\"", .rank = -1, .pid = 7 };
	char *text;

	metrics__set_process(m, &who, 1, 1, some_calls);
	metrics__set_library(m, &who, "/tmp/evil\"} 999\nheaptap_current_bytes{job=\"x\"} 1", 5);
	text = render(m);
	cr_expect(eq(i64, value_of(text, "heaptap_current_bytes{job=\"a\\\"b\\\\c\\nd\","
					 "host=\"h\\\\\\\"\",rank=\"\",pid=\"7\"}"), 1));
	cr_expect(eq(i64,
		     value_of(text, "heaptap_library_current_bytes{job=\"a\\\"b\\\\c\\nd\","
				    "host=\"h\\\\\\\"\",rank=\"\",pid=\"7\",library=\"/tmp/"
				    "evil\\\"} 999\\nheaptap_current_bytes{job=\\\"x\\\"} 1\"}"),
		     5));
	/* The injected sample must not have become a line of its own. */
	cr_expect(eq(ptr, (void *)strstr(text, "\nheaptap_current_bytes{job=\"x\"}"), NULL));
	free(text);
	metrics__free(m);
}

Test(metrics, invalid_utf8_becomes_replacement_characters)
{
	struct metrics *m = metrics__new();
	/* A stray continuation byte, an overlong '/', a surrogate, a cut sequence; then é and 😀. */
	struct metrics_who who = { .job = "j\x80" "a\xc0\xaf" "b\xed\xa0\x80" "c\xe2\x82",
				   .host = "caf\xc3\xa9\xf0\x9f\x98\x80", .rank = 0, .pid = 1 };
	char *text;

	metrics__set_process(m, &who, 1, 1, some_calls);
	text = render(m);
	cr_expect(eq(i64, value_of(text, "heaptap_current_bytes{job=\"j\xef\xbf\xbd" "a\xef\xbf\xbd"
					 "\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
					 "c\xef\xbf\xbd\xef\xbf\xbd\",host=\"caf\xc3\xa9"
					 "\xf0\x9f\x98\x80\",rank=\"0\",pid=\"1\"}"), 1));
	free(text);
	metrics__free(m);
}

Test(metrics, libraries_past_the_bound_add_up_in_others)
{
	struct metrics *m = metrics__new();
	struct metrics_who who = { .job = "j", .host = "h", .rank = 0, .pid = 1 };
	int extra = 10, series = 0;
	long long others = 0;
	char *text, name[32];

	for (int i = 0; i < METRICS_MAX_LIBRARIES + extra; i++) {
		snprintf(name, sizeof(name), "lib%d.so", i);
		metrics__set_library(m, &who, name, 100 + i);
		if (i >= METRICS_MAX_LIBRARIES)
			others += 100 + i;
	}
	text = render(m);
	for (const char *p = text; (p = strstr(p, "\nheaptap_library_current_bytes{")); p++)
		series++;
	cr_expect(eq(int, series, METRICS_MAX_LIBRARIES + 1));
	cr_expect(eq(i64, value_of(text, "heaptap_library_current_bytes{job=\"j\",host=\"h\","
					 "rank=\"0\",pid=\"1\",library=\"lib63.so\"}"), 163));
	cr_expect(eq(i64, value_of(text, "heaptap_library_current_bytes{job=\"j\",host=\"h\","
					 "rank=\"0\",pid=\"1\",library=\"(others)\"}"), others));
	cr_expect(eq(ptr, (void *)strstr(text, "library=\"lib64.so\""), NULL));
	/* A library with its own series stays one when updated. */
	free(text);
	metrics__set_library(m, &who, "lib0.so", -5);
	text = render(m);
	cr_expect(eq(i64, value_of(text, "heaptap_library_current_bytes{job=\"j\",host=\"h\","
					 "rank=\"0\",pid=\"1\",library=\"lib0.so\"}"), -5));
	free(text);
	metrics__free(m);
}

Test(metrics, a_forgotten_process_leaves_no_series)
{
	struct metrics *m = metrics__new();
	struct metrics_who gone = { .job = "j", .host = "h", .rank = 0, .pid = 1 };
	struct metrics_who kept = { .job = "j", .host = "h", .rank = 1, .pid = 2 };
	/* Same job, host and pid as gone, but not a rank: another process for the registry. */
	struct metrics_who other = { .job = "j", .host = "h", .rank = -1, .pid = 1 };
	char *text;

	metrics__set_process(m, &gone, 5, 5, some_calls);
	metrics__set_library(m, &gone, "libgone.so", 5);
	metrics__set_process(m, &kept, 6, 6, some_calls);
	metrics__set_process(m, &other, 7, 7, some_calls);
	metrics__forget_process(m, &gone);
	metrics__forget_process(m, &gone); /* twice is harmless */
	text = render(m);
	cr_expect(eq(ptr, (void *)strstr(text, "rank=\"0\""), NULL), "%s", text);
	cr_expect(eq(ptr, (void *)strstr(text, "libgone.so"), NULL));
	cr_expect(eq(i64, value_of(text, "heaptap_current_bytes{job=\"j\",host=\"h\",rank=\"1\","
					 "pid=\"2\"}"), 6));
	cr_expect(eq(i64, value_of(text, "heaptap_current_bytes{job=\"j\",host=\"h\",rank=\"\","
					 "pid=\"1\"}"), 7));
	cr_expect(eq(i64, value_of(text, "heaptap_collector_processes"), 2));
	free(text);
	metrics__free(m);
}

Test(metrics, health_counters_and_db_histogram)
{
	struct metrics *m = metrics__new();
	const double writes[] = { 0.00005, 0.0003, 0.0003, 0.004, 0.2, 30 };
	char *text;

	metrics__add(m, METRICS_MESSAGES, 3);
	metrics__add(m, METRICS_MESSAGES, 4);
	metrics__add(m, METRICS_BYTES, 1000);
	metrics__add(m, METRICS_REJECTED_CONNECTIONS, 2);
	metrics__add(m, METRICS_DECODE_ERRORS, 5);
	metrics__add(m, METRICS_AUTH_FAILURES, 1);
	metrics__set_agents_connected(m, 9);
	metrics__set_agents_connected(m, 4);
	for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
		metrics__observe_db_write(m, writes[i]);
	text = render(m);
	cr_expect(eq(i64, value_of(text, "heaptap_collector_messages_total"), 7));
	cr_expect(eq(i64, value_of(text, "heaptap_collector_received_bytes_total"), 1000));
	cr_expect(eq(i64, value_of(text, "heaptap_collector_rejected_connections_total"), 2));
	cr_expect(eq(i64, value_of(text, "heaptap_collector_decode_errors_total"), 5));
	cr_expect(eq(i64, value_of(text, "heaptap_collector_auth_failures_total"), 1));
	cr_expect(eq(i64, value_of(text, "heaptap_collector_agents_connected"), 4));
	/* Cumulative buckets: each counts the writes at or below its bound. */
	cr_expect(eq(i64,
		     value_of(text, "heaptap_collector_db_write_seconds_bucket{le=\"0.0001\"}"),
		     1));
	cr_expect(eq(i64,
		     value_of(text, "heaptap_collector_db_write_seconds_bucket{le=\"0.0005\"}"),
		     3));
	cr_expect(eq(i64, value_of(text, "heaptap_collector_db_write_seconds_bucket{le=\"0.005\"}"),
		     4));
	cr_expect(eq(i64, value_of(text, "heaptap_collector_db_write_seconds_bucket{le=\"0.25\"}"),
		     5));
	cr_expect(
		eq(i64, value_of(text, "heaptap_collector_db_write_seconds_bucket{le=\"10\"}"), 5));
	cr_expect(eq(i64, value_of(text, "heaptap_collector_db_write_seconds_bucket{le=\"+Inf\"}"),
		     6));
	cr_expect(eq(i64, value_of(text, "heaptap_collector_db_write_seconds_count"), 6));
	cr_expect(eq(dbl, strtod(line_of(text, "heaptap_collector_db_write_seconds_sum ") +
					 strlen("heaptap_collector_db_write_seconds_sum "),
				 NULL),
		     0.00005 + 0.0003 + 0.0003 + 0.004 + 0.2 + 30));
	free(text);
	metrics__free(m);
}

struct hammer {
	struct metrics *m;
	int id;
};

static void *hammer(void *arg)
{
	struct hammer *h = arg;
	struct metrics_who who = { .job = "j", .host = "h", .rank = h->id, .pid = 100 + h->id };
	char lib[32];

	for (int i = 0; i < 20000; i++) {
		metrics__add(h->m, METRICS_MESSAGES, 1);
		metrics__set_process(h->m, &who, i, i, some_calls);
		snprintf(lib, sizeof(lib), "lib%d.so", i % 8);
		metrics__set_library(h->m, &who, lib, i);
		if (i % 1000 == 999)
			metrics__forget_process(h->m, &who);
	}
	return NULL;
}

/* Writers race each other and a reader: nothing is lost, nothing torn. */
Test(metrics, thread_safe)
{
	struct metrics *m = metrics__new();
	struct hammer h[4];
	pthread_t t[4];
	char *text;

	for (int i = 0; i < 4; i++) {
		h[i] = (struct hammer){ .m = m, .id = i };
		pthread_create(&t[i], NULL, hammer, &h[i]);
	}
	for (int i = 0; i < 50; i++)
		free(render(m));
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	text = render(m);
	cr_expect(eq(i64, value_of(text, "heaptap_collector_messages_total"), 4 * 20000));
	cr_expect(eq(i64, value_of(text, "heaptap_collector_processes"), 0));
	free(text);
	metrics__free(m);
}

/* promtool check metrics on text: its exit status, its complaints in out. */
static int promtool_check(const char *text, char *out, size_t size)
{
	char path[] = "/tmp/heaptap-promtool-XXXXXX", cmd[256];
	int fd = mkstemp(path), status;
	FILE *p;
	size_t n;

	cr_assert(fd >= 0);
	cr_assert(eq(sz, (size_t)write(fd, text, strlen(text)), strlen(text)));
	close(fd);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	p = popen(cmd, "r");
	cr_assert(p != NULL, "cannot run promtool");
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	status = pclose(p);
	unlink(path);
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	cr_assert(status != 127,
		  "promtool not found: install Debian's prometheus package (make deps-test)");
	return status;
}

Test(metrics, promtool_accepts_it)
{
	struct metrics *m = metrics__new();
	struct metrics_who who = { .job = "a\"b\\c\nd\xff", .host = "n\xc3\xa9", .rank = 2,
				   .pid = 99 };
	struct metrics_who plain = { .job = "77", .host = "n01", .rank = -1, .pid = 5 };
	char out[4096], lib[32];
	char *text;

	metrics__set_process(m, &who, -12, 4096, some_calls);
	metrics__set_process(m, &plain, 0, 0, some_calls);
	for (int i = 0; i < METRICS_MAX_LIBRARIES + 3; i++) {
		snprintf(lib, sizeof(lib), "/lib/\"%d\"\n.so", i);
		metrics__set_library(m, &who, lib, i);
	}
	metrics__add(m, METRICS_MESSAGES, 1);
	metrics__observe_db_write(m, 0.003);
	text = render(m);
	cr_expect(eq(int, promtool_check(text, out, sizeof(out)), 0), "promtool: %s", out);
	cr_expect(eq(str, out, ""), "promtool's lint: %s", out);
	free(text);
	metrics__free(m);
}

/* A wrong exposition fails: the check above can fail. */
Test(metrics, promtool_refuses_a_broken_exposition)
{
	char out[4096];
	int bad_utf8 = promtool_check("# TYPE x counter\nx{a=\"\xff\"} 1\n", out, sizeof(out));
	int bad_newline = promtool_check("# TYPE x_bytes gauge\nx_bytes{a=\"b\nc\"} 1\n", out,
					 sizeof(out));

	cr_expect(ne(int, bad_utf8, 0));
	cr_expect(ne(int, bad_newline, 0));
}
