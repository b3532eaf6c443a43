// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The registry in Prometheus' text exposition format (version 0.0.4): each family once,
 * with its HELP and TYPE, its samples together; label values escaped and made valid UTF-8,
 * since job, host and library names come from the agents and their ranks.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "metrics_internal.h"

/* Length of the valid UTF-8 sequence at s (as Prometheus' parser checks it), 0 if none. */
static size_t utf8_sequence(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* No overlong forms, no UTF-16 surrogates, nothing above U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	return len;
}

/* A label value between its quotes: backslash, " and newline escaped, bad UTF-8 bytes as U+FFFD. */
static void put_label_value(FILE *out, const char *value)
{
	const unsigned char *s = (const unsigned char *)value;

	while (*s) {
		size_t len = utf8_sequence(s);

		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '"')
			fputs("\\\"", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (len)
			fwrite(s, 1, len, out);
		else
			fputs("\xef\xbf\xbd", out);
		s += len ? len : 1;
	}
}

/* Labels are escaped when a process or library is first seen, not at every scrape. */
char *metrics_label_value(const char *value)
{
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return NULL;
	put_label_value(out, value);
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	return text;
}

char *metrics_process_labels(const struct metrics_who *who)
{
	char *text = NULL;
	size_t len;
	FILE *out = open_memstream(&text, &len);

	if (!out)
		return NULL;
	fputs("job=\"", out);
	put_label_value(out, who->job ? who->job : "");
	fputs("\",host=\"", out);
	put_label_value(out, who->host ? who->host : "");
	/* Not a rank: an empty value, which Prometheus stores as no label. */
	if (who->rank >= 0)
		fprintf(out, "\",rank=\"%d\",pid=\"%d\"", who->rank, who->pid);
	else
		fprintf(out, "\",rank=\"\",pid=\"%d\"", who->pid);
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * The exposition being written: a buffer that doubles (10,000 ranks make tens of MB, and
 * the registry is locked meanwhile, so no stdio stream that zeroes what it grows).
 */
struct text {
	char *buf;
	size_t len, cap;
	bool failed;
};

static void __attribute__((format(printf, 2, 3))) put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		if (t->failed)
			return;
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = true;
		} else if ((size_t)n < t->cap - t->len) {
			t->len += n;
			return;
		} else {
			char *grown = realloc(t->buf, t->cap * 2 + n);

			if (!grown)
				t->failed = true;
			else
				t->buf = grown, t->cap = t->cap * 2 + n;
		}
	}
}

static void put_family(struct text *out, const char *name, const char *type, const char *help)
{
	put(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void put_library(struct text *out, const struct metrics_process *p, const char *label,
			int64_t current)
{
	put(out, "heaptap_library_current_bytes{%s,library=\"%s\"} %" PRId64 "\n", p->labels,
		label, current);
}

static void put_processes(struct text *out, struct metrics *m)
{
	struct metrics_process *p;
	unsigned int nr = 0;

	put_family(out, "heaptap_current_bytes", "gauge",
		   "Usable bytes a traced process holds: allocated minus freed since traced.");
	for (p = m->processes; p; p = p->hh.next) {
		if (!p->has_totals)
			continue;
		put(out, "heaptap_current_bytes{%s} %" PRId64 "\n", p->labels, p->current);
		nr++;
	}
	put_family(out, "heaptap_max_bytes", "gauge",
		   "Highest balance of usable bytes a traced process reached.");
	for (p = m->processes; p; p = p->hh.next) {
		if (!p->has_totals)
			continue;
		put(out, "heaptap_max_bytes{%s} %" PRId64 "\n", p->labels, p->max);
	}
	put_family(out, "heaptap_calls_total", "counter",
		   "Calls a traced process made to each malloc-family function (op).");
	for (p = m->processes; p; p = p->hh.next) {
		for (int f = 0; p->has_totals && f < HT_NR_FUNCS; f++) {
			put(out, "heaptap_calls_total{%s,op=\"%s\"} %" PRIu64 "\n", p->labels,
				ht_func_names[f], p->calls[f]);
		}
	}
	put_family(out, "heaptap_library_current_bytes", "gauge",
		   "Usable bytes a traced process holds through calls charged to a library.");
	for (p = m->processes; p; p = p->hh.next) {
		const struct metrics_library *lib = p->libraries;
		int64_t others = 0;

		for (unsigned int i = 0; lib; lib = lib->hh.next, i++) {
			if (i < METRICS_MAX_LIBRARIES)
				put_library(out, p, lib->label, lib->current);
			else
				others += lib->current;
		}
		if (p->nr_libraries > METRICS_MAX_LIBRARIES)
			put_library(out, p, METRICS_OTHER_LIBRARIES, others);
	}
	/* An agent's own count of its processes would be the collector's name: left out. */
	if (m->without_health)
		return;
	put_family(out, "heaptap_collector_processes", "gauge",
		   "Traced processes that have series here.");
	put(out, "heaptap_collector_processes %u\n", nr);
}

static const struct {
	const char *name, *help;
} counters[METRICS_NR_COUNTERS] = {
	[METRICS_MESSAGES] = { "heaptap_collector_messages_total",
			       "Messages received from agents." },
	[METRICS_BYTES] = { "heaptap_collector_received_bytes_total",
			    "Bytes received from agents." },
	[METRICS_REJECTED_CONNECTIONS] = { "heaptap_collector_rejected_connections_total",
					   "Agent connections refused or closed for a fault." },
	[METRICS_DECODE_ERRORS] = { "heaptap_collector_decode_errors_total",
				    "Frames that could not be decoded." },
	[METRICS_AUTH_FAILURES] = { "heaptap_collector_auth_failures_total",
				    "Connections that failed authentication." },
};

static void put_health(struct text *out, struct metrics *m)
{
	uint64_t below = 0;

	put_family(out, "heaptap_collector_agents_connected", "gauge",
		   "Agents connected to the collector now.");
	put(out, "heaptap_collector_agents_connected %u\n", m->agents_connected);
	for (int c = 0; c < METRICS_NR_COUNTERS; c++) {
		put_family(out, counters[c].name, "counter", counters[c].help);
		put(out, "%s %" PRIu64 "\n", counters[c].name, m->counters[c]);
	}
	put_family(out, "heaptap_collector_db_write_seconds", "histogram",
		   "Time of each database transaction (a batch of agent messages).");
	for (int i = 0; i < METRICS_NR_DB_BUCKETS; i++) {
		below += m->db_buckets[i];
		put(out, "heaptap_collector_db_write_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
			metrics_db_bounds[i], below);
	}
	put(out, "heaptap_collector_db_write_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n",
		m->db_count);
	put(out, "heaptap_collector_db_write_seconds_sum %.17g\n", m->db_sum);
	put(out, "heaptap_collector_db_write_seconds_count %" PRIu64 "\n", m->db_count);
}

char *metrics__render(struct metrics *m, size_t *len)
{
	struct text out = { .cap = 64 << 10 };

	out.buf = malloc(out.cap);
	if (!out.buf)
		return NULL;
	pthread_mutex_lock(&m->lock);
	put_processes(&out, m);
	if (!m->without_health)
		put_health(&out, m);
	pthread_mutex_unlock(&m->lock);
	if (out.failed) {
		free(out.buf);
		return NULL;
	}
	*len = out.len;
	return out.buf;
}
