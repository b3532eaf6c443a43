/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The real Prometheus server (Debian's prometheus), started by a test on 127.0.0.1 to
 * scrape heaptap's /metrics, and asked back through its HTTP query API.
 */
#ifndef HEAPTAP_TEST_PROMETHEUS_H
#define HEAPTAP_TEST_PROMETHEUS_H

#include <stdbool.h>
#include <json-c/json.h>

struct prometheus;

/*
 * Start it on a free port of 127.0.0.1, its data in the test's scratch directory,
 * scraping every target (ADDR:PORT, NULL-terminated) each second as job "heaptap" with
 * honor_labels (the series' own job label wins), and wait until it is ready. Fails the
 * test in one line when it cannot start.
 */
struct prometheus *prometheus_start(const char *const targets[]);
/* Stop it (SIGTERM, then SIGKILL) and fail the test if it had died meanwhile. */
void prometheus_stop(struct prometheus *p);
/* Its base URL, http://127.0.0.1:PORT. */
const char *prometheus_url(const struct prometheus *p);

/* /api/v1/query: the instant vector's result[] (json_object_put it), or fail the test. */
json_object *prometheus_query(struct prometheus *p, const char *query);
/*
 * Wait until every target has been scraped successfully (up == 1); else fail the test
 * with the scrape error Prometheus gives.
 */
void prometheus_wait_up(struct prometheus *p, int timeout_s);
/*
 * Poll query until it gives exactly one sample whose value is want, for at most
 * timeout_s. True if it did; *got has the last value seen (NAN when there was none or
 * several) and *labels (if not NULL) that sample's labels, to json_object_put.
 */
bool prometheus_wait_value(struct prometheus *p, const char *query, double want, int timeout_s,
			   double *got, json_object **labels);

#endif
