// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Agents stream a 3-rank Open MPI job into a collector on this machine, one agent per
 * rank or one around the whole job (and around 16 ranks); the database's report equals
 * what each rank recorded of itself. The collector killed (SIGKILL) and restarted mid-run loses and
 * doubles nothing.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "cluster.h"
#include "driver.h"

TestSuite(cluster, .timeout = 300);

#define RANKS 3

/* Every rank of the stored run exited, of one job, on this host. */
static void assert_one_finished_job(json_object *report, int ranks)
{
	json_object *processes = get(report, "processes");
	const char *job = NULL;

	cr_assert(eq(int, json_object_array_length(processes), ranks), "%s",
		  json_object_to_json_string(report));
	cr_expect(eq(int, json_object_get_int(get(report, "heaptap")), 2));
	for (int rank = 0; rank < ranks; rank++) {
		json_object *p = process_of_rank(report, rank);

		cr_assert(p != NULL, "no rank %d", rank);
		cr_expect(eq(str, (char *)json_object_get_string(get(p, "status")), "exited"));
		cr_expect(json_object_get_boolean(get(p, "agent_lost")) == 0);
		cr_expect(eq(int, json_object_get_int(get(p, "world_size")), ranks));
		cr_expect(eq(i64, json_object_get_int64(get(p, "lost_events")), 0), "rank %d lost",
			  rank);
		cr_expect(eq(i64, json_object_get_int64(get(p, "incomplete_stacks")), 0),
			  "rank %d: incomplete stacks", rank);
		cr_expect(eq(int, json_object_get_int(get(p, "exit_status")), 0));
		cr_expect(eq(i64, json_object_get_int64(get(p, "dropped_messages")), 0));
		cr_assert(json_object_get_string(get(p, "job")) != NULL, "rank %d has no job", rank);
		if (!job)
			job = json_object_get_string(get(p, "job"));
		cr_expect(eq(str, (char *)job, (char *)json_object_get_string(get(p, "job"))));
	}
}

/* No batch was stored twice: each process has at most one sample per batch time. */
static void assert_nothing_twice(const char *db)
{
	cr_expect(eq(i64, db_integer(db, "SELECT count(*) FROM (SELECT 1 FROM samples "
					 "GROUP BY process, t HAVING count(*) > 1)"), 0),
		  "a batch was stored twice");
	cr_expect(db_intact(db), "PRAGMA integrity_check failed on %s", db);
}

/*
 * The job is over: its stored run is one finished job whose ranks equal their own truth,
 * the collector stops cleanly, and nothing was stored twice.
 */
static void assert_n_ranks_stored_exactly(struct collector_proc *c, int ranks)
{
	json_object *report = stored_report(c->db, 0);

	assert_one_finished_job(report, ranks);
	assert_ranks_match_truth(report, ranks, scratch_dir(), "truth");
	cr_expect(eq(int, collector_stop(c, SIGTERM), 0), "%s", slurp(c->err));
	assert_nothing_twice(c->db);
	json_object_put(report);
}

static void assert_job_stored_exactly(struct collector_proc *c)
{
	assert_n_ranks_stored_exactly(c, RANKS);
}

static int run_mpirun(char *const argv[])
{
	char err[256];
	int status = wait_status(spawn(argv, NULL, scratch_file("mpirun.err", err, sizeof(err))),
				 240);

	cr_expect(eq(int, status, 0), "mpirun: %s", slurp(err));
	return status;
}

Test(cluster, one_agent_per_rank)
{
	struct collector_proc c;
	char target[512], db[256];

	require_bpf();
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, NULL);
	{
		char *argv[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3",
				 (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint,
				 "-i", "0.2", "--", (char *)target_path("mpi_workers", target,
									 sizeof(target)),
				 "--truth-dir", (char *)scratch_dir(), NULL };

		run_mpirun(argv);
	}
	assert_job_stored_exactly(&c);
}

Test(cluster, one_agent_around_the_job)
{
	struct collector_proc c;
	char target[512], db[256];

	require_bpf();
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, NULL);
	{
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint,
				 "--mpi", "--", "mpirun", "--allow-run-as-root", "--oversubscribe",
				 "-np", "3", (char *)target_path("mpi_workers", target, sizeof(target)),
				 "--truth-dir", (char *)scratch_dir(), NULL };

		run_mpirun(argv);
	}
	assert_job_stored_exactly(&c);
}

/*
 * The per-node agent the cluster documents, around 16 ranks that start together: every
 * rank stored exact (--sample-bytes 0: the agent samples by default), nothing lost,
 * every stack whole.
 */
Test(cluster, one_agent_around_sixteen_ranks)
{
	struct collector_proc c;
	char target[512], db[256];

	require_bpf();
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, NULL);
	{
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint, "--mpi", "--", "mpirun",
				 "--allow-run-as-root", "--oversubscribe", "-np", "16",
				 (char *)target_path("mpi_workers", target, sizeof(target)),
				 "--truth-dir", (char *)scratch_dir(), NULL };

		run_mpirun(argv);
	}
	assert_n_ranks_stored_exactly(&c, 16);
}

Test(cluster, collector_killed_and_restarted)
{
	struct collector_proc c, again;
	char target[512], db[256], go[256], err[256];
	pid_t mpirun;

	require_bpf();
	/* Short rounds: some of the held state is committed before the collector dies. */
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0,
			(const char *const[]){ "--commit-every", "0.5", NULL });
	scratch_file("go", go, sizeof(go));
	{
		char *argv[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3",
				 (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint,
				 "-i", "0.2", "--", (char *)target_path("mpi_workers", target,
									 sizeof(target)),
				 "--truth-dir", (char *)scratch_dir(), "--hold", go, NULL };

		mpirun = spawn(argv, NULL, scratch_file("mpirun.err", err, sizeof(err)));
	}
	cr_assert(ranks_hold(RANKS, mpirun), "the ranks did not get to hold their memory: %s",
		  slurp(err));
	/* The held state is stored (some batches at least), then the collector dies. */
	for (int tries = 0; tries < 500 && db_integer(db, "SELECT count(*) FROM processes "
							  "WHERE rank IS NOT NULL") < RANKS; tries++)
		sleep_ms(20);
	sleep_ms(1000);
	cr_expect(eq(int, collector_stop(&c, SIGKILL), 128 + SIGKILL));
	/* The ranks free everything and exit while nobody collects: the agents keep it. */
	cr_assert(fclose(fopen(go, "w")) == 0);
	sleep_ms(2000);
	collector_start(&again, db, c.port, NULL);
	cr_assert(eq(int, wait_status(mpirun, 240), 0), "mpirun: %s", slurp(err));
	assert_job_stored_exactly(&again);
}
