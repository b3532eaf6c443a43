// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The OS view and --allocator accounts, per rank, through agents and a collector: 3-rank
 * Open MPI jobs, one agent per rank; each rank's stored figures (heaptap report DB's JSON)
 * equal what the rank counted itself: the mappings program's mapped bytes per function and
 * its thread, pool_user's pool account in all and per thread.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "cluster.h"
#include "driver.h"

TestSuite(cluster_os, .timeout = 300);

#define RANKS 3

static const char *const map_fields[] = { "current", "min", "max", "anonymous", "file",
					  "brk", "malloc_own", NULL };
static const char *const count_fields[] = { "calls", "bytes", NULL };
static const char *const api_fields[] = { "current", "min", "max", "requested", NULL };

/*
 * mpirun -np 3 heaptap agent -a caller [--allocator SPEC] -- PROGRAM --truth-dir SCRATCH,
 * with the collector c; the stored run as heaptap report DB --json gives it.
 */
static json_object *run_job(struct collector_proc *c, const char *spec, const char *program)
{
	char target[4096], err[256];
	char *argv[24] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3",
			   (char *)heaptap_path(), "agent", "--sample-bytes", "0",
			   		 "--collector", c->endpoint, "-a",
			   "caller", "-i", "0.2" };
	char **arg = argv + 13;
	json_object *report;

	if (spec) {
		*arg++ = "--allocator";
		*arg++ = (char *)spec;
	}
	*arg++ = "--";
	*arg++ = (char *)target_path(program, target, sizeof(target));
	*arg++ = "--truth-dir";
	*arg = (char *)scratch_dir();
	cr_assert(eq(int, wait_status(spawn(argv, NULL, scratch_file("mpirun.err", err,
								     sizeof(err))), 240), 0),
		  "mpirun: %s", slurp(err));
	cr_expect(eq(int, collector_stop(c, SIGTERM), 0), "%s", slurp(c->err));
	report = stored_report(c->db, 0);
	cr_assert(eq(int, json_object_array_length(get(report, "processes")), RANKS));
	return report;
}

/* The rank's truth, PREFIX-RANK.json in the scratch directory. */
static json_object *truth_of_rank(const char *prefix, int rank)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s-%d.json", scratch_dir(), prefix, rank);
	return load_json(path);
}

/* Each function of the mappings program and libmaps, and its thread, exactly. */
static void expect_mappings(json_object *mappings, json_object *truth, int rank)
{
	json_object *functions = get(truth, "functions"), *want_thread = get(truth, "thread");
	json_object *thread;
	char what[128], suffix[64];

	cr_assert(json_object_is_type(mappings, json_type_object), "rank %d: no mappings", rank);
	for (size_t i = 0; i < json_object_array_length(functions); i++) {
		json_object *want = json_object_array_get_idx(functions, i), *got;
		const char *name = json_object_get_string(get(want, "function"));

		snprintf(suffix, sizeof(suffix), "/%s", json_object_get_string(get(want, "library")));
		got = find_function(get(mappings, "functions"), name, suffix);
		cr_assert(got != NULL, "rank %d: %s missing from the stored mappings", rank, name);
		snprintf(what, sizeof(what), "rank %d: mappings of %s", rank, name);
		assert_balance(got, want, map_fields, what);
		assert_fields(get(got, "released"), get(want, "released"), count_fields, what);
		assert_fields(get(got, "unmapped_before_tracing"),
			      get(want, "unmapped_before_tracing"), count_fields, what);
	}
	thread = find_by_int(get(mappings, "threads"), "tid",
			     json_object_get_int64(get(want_thread, "tid")));
	cr_assert(thread != NULL, "rank %d: the mapper thread is not stored", rank);
	cr_expect(eq(i64, json_object_get_int64(get(thread, "current")),
		     json_object_get_int64(get(want_thread, "current"))), "rank %d", rank);
	cr_expect(eq(str, (char *)json_object_get_string(get(thread, "name")), "mapper"));
}

Test(cluster_os, mappings_of_each_rank)
{
	struct collector_proc c;
	json_object *report;
	char db[256];

	require_bpf();
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0,
			(const char *const[]){ "--commit-every", "1", NULL });
	report = run_job(&c, NULL, "mappings");
	for (int rank = 0; rank < RANKS; rank++) {
		json_object *p = process_of_rank(report, rank), *truth = truth_of_rank("mappings",
										       rank);

		cr_assert(p != NULL, "no rank %d", rank);
		cr_expect(eq(i64, json_object_get_int64(get(p, "pid")),
			     json_object_get_int64(get(truth, "pid"))));
		expect_mappings(get(p, "mappings"), truth, rank);
		json_object_put(truth);
	}
	json_object_put(report);
	cr_expect(eq(i64, db_integer(db, "SELECT count(DISTINCT process) FROM mapping_groups"),
		     RANKS));
}

/* The rank's pool account: in all and per thread, exactly as it counted its calls. */
static void expect_pool(json_object *process, json_object *truth, int rank)
{
	json_object *api = find_by_str(get(process, "allocators"), "allocator", "cpool");
	json_object *threads = get(truth, "threads");
	char what[64];

	cr_assert(api != NULL, "rank %d: no stored account of cpool", rank);
	cr_expect(strstr(json_object_get_string(get(api, "library")), "/libcpool.so") != NULL);
	snprintf(what, sizeof(what), "rank %d: cpool", rank);
	assert_balance(api, get(truth, "total"), api_fields, what);
	cr_assert(eq(sz, json_object_array_length(threads), 2));
	for (size_t i = 0; i < json_object_array_length(threads); i++) {
		json_object *want = json_object_array_get_idx(threads, i);
		long long tid = json_object_get_int64(get(want, "tid"));
		json_object *got = find_by_int(get(api, "threads"), "tid", tid);

		cr_assert(got != NULL, "rank %d: cpool's thread %lld not stored", rank, tid);
		snprintf(what, sizeof(what), "rank %d: cpool thread %lld", rank, tid);
		assert_balance(got, want, api_fields, what);
	}
}

Test(cluster_os, allocator_apis_of_each_rank)
{
	struct collector_proc c;
	json_object *report;
	char db[256], spec[4096];

	require_bpf();
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0,
			(const char *const[]){ "--commit-every", "1", NULL });
	report = run_job(&c, target_path("cpool.spec", spec, sizeof(spec)), "pool_user");
	for (int rank = 0; rank < RANKS; rank++) {
		json_object *p = process_of_rank(report, rank), *truth = truth_of_rank("pool", rank);

		cr_assert(p != NULL, "no rank %d", rank);
		expect_pool(p, truth, rank);
		/* The OS view came too: gbrk's region, mapped inside the probed call. */
		cr_expect(find_function(get(get(p, "mappings"), "functions"), "gbrk",
					"/libcpool.so") != NULL, "rank %d: gbrk's mmap", rank);
		json_object_put(truth);
	}
	json_object_put(report);
	cr_expect(eq(i64, db_integer(db, "SELECT count(DISTINCT process) FROM allocators"),
		     RANKS));
}
