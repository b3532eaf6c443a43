// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The OOM killer: oom_grow joins a memory cgroup limited to 128 MiB (v1 or v2, whichever
 * the machine mounts) and grows from grow_site until killed. Its report's "oom" names
 * grow_site as holding >= 90% of the bytes the process held when chosen, the cgroup and
 * its limit; the text report says it was killed by the OOM killer.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"
#include "cluster.h"
#include "oom_cgroup.h"

TestSuite(oom, .timeout = 180);

/* The bytes of the oom sites whose frames name function. */
static long long bytes_of(json_object *sites, const char *function)
{
	long long bytes = 0;

	for (size_t i = 0; i < json_object_array_length(sites); i++) {
		json_object *s = json_object_array_get_idx(sites, i), *frames = get(s, "frames");

		for (size_t f = 0; f < json_object_array_length(frames); f++) {
			json_object *fr = json_object_array_get_idx(frames, f);

			if (!strcmp(json_object_get_string(get(fr, "function")), function)) {
				bytes += json_object_get_int64(get(s, "bytes"));
				break;
			}
		}
	}
	return bytes;
}

void expect_oom_process(json_object *process, const char *cgroup_path)
{
	json_object *oom = get_opt(process, "oom"), *cg;
	long long held, grow;

	cr_assert(oom && !json_object_is_type(oom, json_type_null),
		  "no \"oom\" in %s", json_object_to_json_string(process));
	held = json_object_get_int64(get(oom, "bytes"));
	grow = bytes_of(get(oom, "sites"), "grow_site");
	cr_expect(held >= 32ll << 20, "held %lld bytes when chosen", held);
	cr_expect(held <= 160ll << 20, "held %lld bytes, past the limit", held);
	cr_expect(grow * 10 >= held * 9, "grow_site held %lld of %lld bytes", grow, held);
	cr_expect(bytes_of(get(oom, "sites"), "side_site") >= 4ll << 20, "side_site's 4 MiB");
	cr_expect(json_object_get_double(get(oom, "time")) > 0);
	cg = get_opt(oom, "cgroup");
	if (cgroup_path) {
		cr_assert(cg != NULL, "no cgroup in %s", json_object_to_json_string(oom));
		cr_expect(eq(str, (char *)json_object_get_string(get(cg, "path")),
			     (char *)cgroup_path));
		cr_expect(eq(i64, json_object_get_int64(get(cg, "limit_bytes")),
			     OOM_LIMIT_BYTES));
	}
}

Test(oom, run_names_the_growing_site)
{
	char json[256], text[256], err[256], target[512];
	struct oom_cgroup cg;
	json_object *report, *processes;
	char *out;

	require_bpf();
	cr_assert(eq(int, oom_cgroup__make(&cg), 0), "cannot make a memory cgroup");
	{
		char *argv[] = { (char *)heaptap_path(), "run", "--json",
				 (char *)scratch_file("report.json", json, sizeof(json)), "-o",
				 (char *)scratch_file("report.txt", text, sizeof(text)), "--",
				 (char *)target_path("oom_grow", target, sizeof(target)), cg.dir,
				 NULL };

		wait_status(spawn(argv, NULL, scratch_file("run.err", err, sizeof(err))), 120);
	}
	oom_cgroup__remove(&cg);
	report = load_json(json);
	processes = get(report, "processes");
	cr_assert(eq(sz, json_object_array_length(processes), 1), "%s", slurp(err));
	expect_oom_process(json_object_array_get_idx(processes, 0), cg.path);
	out = slurp(text);
	cr_expect(strstr(out, "killed by the OOM killer at") != NULL, "%s", out);
	cr_expect(strstr(out, "grow_site") != NULL, "%s", out);
	free(out);
	json_object_put(report);
}

/*
 * The same under agent, to a collector (SQLite): the stored run's process carries the
 * "oom" the agent sent, and heaptap report DB says it was killed by the OOM killer.
 */
Test(oom, agent_stores_the_growing_site)
{
	char db[256], err[256], target[512], text[256];
	struct collector_proc c;
	struct oom_cgroup cg;
	json_object *report, *processes;
	char *out;

	require_bpf();
	collector_start(&c, scratch_file("oom.db", db, sizeof(db)), 0, NULL);
	cr_assert(eq(int, oom_cgroup__make(&cg), 0), "cannot make a memory cgroup");
	{
		char *argv[] = { (char *)heaptap_path(), "agent", "--collector", c.endpoint, "--",
				 (char *)target_path("oom_grow", target, sizeof(target)), cg.dir,
				 NULL };

		wait_status(spawn(argv, NULL, scratch_file("agent.err", err, sizeof(err))), 120);
	}
	oom_cgroup__remove(&cg);
	/* top --collector: the process's state says so. */
	for (int tries = 0; tries < 50 && db_integer(db, "SELECT count(*) FROM owner WHERE "
							 "oom_time IS NOT NULL") < 1; tries++)
		sleep_ms(200);
	{
		char *argv[] = { (char *)heaptap_path(), "top", "--collector", c.endpoint,
				 "-b", "-n", "1", NULL };
		pid_t top = spawn(argv, scratch_file("top.txt", text, sizeof(text)), NULL);

		cr_expect(eq(int, wait_status(top, 30), 0));
		out = slurp(text);
		cr_expect(strstr(out, "OOM-killed") != NULL, "%s", out);
		free(out);
	}
	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0), "%s", slurp(c.err));
	report = stored_report(db, 0);
	cr_assert(report != NULL, "%s", slurp(err));
	processes = get(report, "processes");
	cr_assert(eq(sz, json_object_array_length(processes), 1), "%s",
		  json_object_to_json_string(report));
	expect_oom_process(json_object_array_get_idx(processes, 0), cg.path);
	json_object_put(report);
	{
		char *argv[] = { (char *)heaptap_path(), "report", db, NULL };

		pid_t report = spawn(argv, scratch_file("db.txt", text, sizeof(text)), NULL);

		cr_assert(eq(int, wait_status(report, 60), 0));
	}
	out = slurp(text);
	cr_expect(strstr(out, "Killed by the OOM killer: rank") && strstr(out, "grow_site"), "%s",
		  out);
	free(out);
}
