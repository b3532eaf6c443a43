// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <criterion/criterion.h>
#include "driver.h"
#include "prometheus.h"
#include "services.h"

struct prometheus {
	pid_t pid;
	char url[64];
	char log[256];
	char answer[256]; /* the last HTTP answer */
};

static void write_config(const char *path, const char *const targets[])
{
	FILE *f = fopen(path, "w");

	cr_assert(f, "%s: %s", path, strerror(errno));
	/* 1 s: the shortest interval the tests can wait on without timing assumptions. */
	fprintf(f, "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
		   "scrape_configs:\n  - job_name: heaptap\n    honor_labels: true\n"
		   "    static_configs:\n      - targets:\n");
	for (size_t i = 0; targets[i]; i++)
		fprintf(f, "          - '%s'\n", targets[i]);
	cr_assert(!fclose(f));
}

/* The last line of the log that says something went wrong, for a one-line failure. */
static const char *why_not(const struct prometheus *p)
{
	static char line[512];
	char *log = slurp(p->log), *found = NULL;

	snprintf(line, sizeof(line), "no reason in %s", p->log);
	for (char *l = log ? strtok(log, "\n") : NULL; l; l = strtok(NULL, "\n")) {
		if (strstr(l, "level=error") || strstr(l, "err="))
			found = l;
	}
	if (found)
		snprintf(line, sizeof(line), "%s", found);
	free(log);
	return line;
}

/* Start it on one port and wait until ready: 0, or -EADDRINUSE to try another port. */
static int try_start(struct prometheus *p, const char *config, const char *data)
{
	char config_arg[300], data_arg[300], listen_arg[64], ready[128];
	int port = free_local_port();
	char *argv[] = { "prometheus", config_arg, data_arg, listen_arg, NULL };
	int status;

	snprintf(config_arg, sizeof(config_arg), "--config.file=%s", config);
	snprintf(data_arg, sizeof(data_arg), "--storage.tsdb.path=%s", data);
	snprintf(listen_arg, sizeof(listen_arg), "--web.listen-address=127.0.0.1:%d", port);
	snprintf(p->url, sizeof(p->url), "http://127.0.0.1:%d", port);
	snprintf(ready, sizeof(ready), "%s/-/ready", p->url);
	p->pid = spawn_service(argv, NULL, p->log);
	for (int tries = 0; tries < 600; tries++) {
		if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
			char *log = slurp(p->log);
			bool in_use = log && strstr(log, "address already in use");

			free(log);
			if (in_use)
				return -EADDRINUSE;
			cr_assert_fail("prometheus did not start (exit %d): %s",
				 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
				 why_not(p));
		}
		if (!http_get(ready, NULL, NULL, p->answer))
			return 0;
		sleep_ms(100);
	}
	stop_service(p->pid, 10);
	cr_assert_fail("prometheus was not ready within 60 s: %s", why_not(p));
	return -ETIMEDOUT;
}

struct prometheus *prometheus_start(const char *const targets[])
{
	struct prometheus *p = calloc(1, sizeof(*p));
	char config[256], data[256];

	cr_assert(p);
	cr_assert(have_program("prometheus"),
		  "prometheus is missing: install Debian's prometheus package (make deps-test)");
	scratch_file("prometheus.yml", config, sizeof(config));
	scratch_file("prometheus-data", data, sizeof(data));
	scratch_file("prometheus.log", p->log, sizeof(p->log));
	scratch_file("prometheus-answer.json", p->answer, sizeof(p->answer));
	cr_assert(!mkdir(data, 0700) || errno == EEXIST, "%s: %s", data, strerror(errno));
	write_config(config, targets);
	/* Another process may take the free port before Prometheus binds it. */
	for (int tries = 0; tries < 5; tries++) {
		if (!try_start(p, config, data))
			return p;
	}
	cr_assert_fail("prometheus: no free port on 127.0.0.1 in 5 tries");
	return NULL;
}

void prometheus_stop(struct prometheus *p)
{
	int status;

	if (!p)
		return;
	/* Still running, as it should be: a crash during the test is a failure. */
	cr_expect(waitpid(p->pid, &status, WNOHANG) == 0, "prometheus died: %s", why_not(p));
	stop_service(p->pid, 20);
	free(p);
}

const char *prometheus_url(const struct prometheus *p)
{
	return p->url;
}

json_object *prometheus_query(struct prometheus *p, const char *query)
{
	char url[128];
	json_object *answer, *result;
	int status;

	snprintf(url, sizeof(url), "%s/api/v1/query", p->url);
	status = http_get(url, "query", query, p->answer);
	cr_assert(status == 0, "prometheus query %s: curl exit %d", query, status);
	answer = load_json(p->answer);
	cr_assert(!strcmp(json_object_get_string(get(answer, "status")), "success"),
		  "prometheus query %s: %s", query, json_object_to_json_string(answer));
	result = json_object_get(get(get(answer, "data"), "result"));
	json_object_put(answer);
	cr_assert(json_object_is_type(result, json_type_array), "query %s: not a vector", query);
	return result;
}

/* Each target's last scrape error, on one line. */
static const char *scrape_errors(struct prometheus *p)
{
	static char errors[1024];
	char url[128];
	json_object *answer, *active;
	size_t n = 0;

	errors[0] = '\0';
	snprintf(url, sizeof(url), "%s/api/v1/targets", p->url);
	if (http_get(url, NULL, NULL, p->answer))
		return "cannot ask prometheus for its targets";
	answer = load_json(p->answer);
	active = get(get(answer, "data"), "activeTargets");
	for (size_t i = 0; i < json_object_array_length(active) && n < sizeof(errors); i++) {
		json_object *t = json_object_array_get_idx(active, i);

		n += snprintf(errors + n, sizeof(errors) - n, "%s%s: %s", i ? "; " : "",
			      json_object_get_string(get(t, "scrapeUrl")),
			      json_object_get_string(get(t, "lastError")));
	}
	json_object_put(answer);
	return errors;
}

void prometheus_wait_up(struct prometheus *p, int timeout_s)
{
	double start = now_s();

	do {
		json_object *up = prometheus_query(p, "up{job=\"heaptap\"} == 0");
		json_object *all = prometheus_query(p, "up{job=\"heaptap\"}");
		bool ok = json_object_array_length(all) > 0 && json_object_array_length(up) == 0;

		json_object_put(up);
		json_object_put(all);
		if (ok)
			return;
		sleep_ms(250);
	} while (now_s() - start < timeout_s);
	cr_assert_fail("prometheus could not scrape heaptap within %d s: %s", timeout_s,
		 scrape_errors(p));
}

bool prometheus_wait_value(struct prometheus *p, const char *query, double want, int timeout_s,
			   double *got, json_object **labels)
{
	double start = now_s();

	do {
		json_object *result = prometheus_query(p, query), *sample;

		*got = NAN;
		if (json_object_array_length(result) == 1) {
			sample = json_object_array_get_idx(result, 0);
			*got = strtod(json_object_get_string(json_object_array_get_idx(
					      get(sample, "value"), 1)),
				      NULL);
			if (labels) {
				json_object_put(*labels);
				*labels = json_object_get(get(sample, "metric"));
			}
		}
		json_object_put(result);
		if (*got == want)
			return true;
		sleep_ms(250);
	} while (now_s() - start < timeout_s);
	return false;
}
