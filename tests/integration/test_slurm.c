// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A real one-node Slurm cluster (Debian's slurm-wlm and munge on 127.0.0.1, started and
 * stopped by tests/integration/slurm_cluster.sh): the ranks of an `srun -n 3` job (a program
 * without MPI: its rank is SLURM_PROCID and nothing else) are found under slurmstepd, by
 * `heaptap attach --mpi` and by an agent that srun placed on the node, and what heaptap
 * reports or stores of each equals the rank's own truth.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "cluster.h"
#include "driver.h"
#include "services.h"
#include "slurm.h"

#define RANKS 3

static void start(void)
{
	require_bpf();
	slurm_start();
}

TestSuite(slurm, .init = start, .fini = slurm_stop, .timeout = 240);

/* Every rank of the report matches its truth file; all of one Slurm job. */
static void expect_ranks_match_truth(json_object *processes, const char *dir)
{
	bool seen[RANKS] = {};
	const char *job = NULL;

	for (size_t i = 0; i < json_object_array_length(processes); i++) {
		json_object *p = json_object_array_get_idx(processes, i), *truth, *libgt;
		char path[512], what[64];
		int rank;

		if (json_object_is_type(get(p, "rank"), json_type_null))
			continue;
		rank = json_object_get_int(get(p, "rank"));
		cr_assert(rank >= 0 && rank < RANKS, "rank %d in an srun -n %d job", rank, RANKS);
		cr_expect(seen[rank] == false, "rank %d reported twice", rank);
		seen[rank] = true;
		cr_expect(eq(int, json_object_get_int(get(p, "world_size")), RANKS));
		cr_expect(eq(i64, json_object_get_int64(get(p, "lost_events")), 0));
		/* SLURM_JOB_ID: the same for every rank. */
		if (!job)
			job = json_object_get_string(get(p, "job"));
		cr_expect(job && *job && strcmp(job, json_object_get_string(get(p, "job"))) == 0,
			  "rank %d: job %s, rank 0's %s", rank,
			  json_object_get_string(get(p, "job")), job);
		snprintf(path, sizeof(path), "%s/truth-%d.json", dir, rank);
		truth = load_json(path);
		snprintf(what, sizeof(what), "rank %d", rank);
		assert_libgt_functions(get(p, "functions"), get(truth, "entry_functions"), what);
		libgt = NULL;
		for (size_t l = 0; l < json_object_array_length(get(p, "libraries")); l++) {
			json_object *lib = json_object_array_get_idx(get(p, "libraries"), l);

			if (strstr(json_object_get_string(get(lib, "library")), "/libgt.so"))
				libgt = lib;
		}
		cr_assert(libgt != NULL, "rank %d: libgt.so missing", rank);
		assert_balance(libgt, get(truth, "library"),
			       (const char *const[]){ "current", "min", "max", "requested", NULL },
			       what);
		json_object_put(truth);
	}
	cr_expect(seen[0] && seen[1] && seen[2], "ranks seen: %d %d %d", seen[0], seen[1],
		  seen[2]);
}

/* The node's cluster alone, before any agent: `heaptap attach --mpi` beside an srun job. */
Test(slurm, attach_mpi_finds_the_ranks_of_an_srun_job)
{
	char target[4096], json[256], err[256], srun_err[256];
	char *heaptap_argv[] = { (char *)heaptap_path(), "attach", "--mpi", "--json",
				 (char *)scratch_file("report.json", json, sizeof(json)), NULL };
	char *srun_argv[] = { "srun", "-n", "3", "--overcommit",
			      (char *)target_path("env_rank", target, sizeof(target)),
			      "--truth-dir", (char *)scratch_dir(), NULL };
	json_object *report, *processes;
	pid_t tracer;
	bool watching;

	tracer = spawn(heaptap_argv, NULL, scratch_file("err.txt", err, sizeof(err)));
	watching = wait_for_text(err, "heaptap: watching for MPI ranks", 30);
	if (!watching)
		wait_status(tracer, 1);
	cr_assert(watching, "heaptap never started watching: %s", slurp(err));
	cr_assert(eq(int, wait_status(spawn(srun_argv, NULL,
					    scratch_file("srun.err", srun_err, sizeof(srun_err))),
				      120),
		     0),
		  "srun: %s", slurp(srun_err));
	kill(tracer, SIGINT);
	cr_assert(eq(int, wait_status(tracer, 30), 0), "heaptap: %s", slurp(err));
	report = load_json(json);
	processes = get(report, "processes");
	cr_expect(eq(sz, json_object_array_length(processes), RANKS), "only the ranks");
	expect_ranks_match_truth(processes, scratch_dir());
	json_object_put(report);
}

/* Wait until the collector has stored every rank as exited. */
static bool ranks_stored_exited(const char *db, pid_t agent)
{
	for (int tries = 0; tries < 3000; tries++) {
		if (db_integer(db, "SELECT count(*) FROM processes WHERE rank IS NOT NULL "
				   "AND state = 'exited'") == RANKS)
			return true;
		if (kill(agent, 0))
			return false;
		sleep_ms(20);
	}
	return false;
}

/*
 * The placement: one agent per node started by srun beside the job's allocation
 * (--ntasks-per-node=1 --overlap), streaming to a collector; then the job's step of
 * target under srun's MPI plugin mpi ("none": a program that only has SLURM_PROCID).
 */
static void agent_beside_an_srun_job(const char *program, const char *mpi)
{
	struct collector_proc c;
	char db[256], agent_err[256], srun_err[256], target[4096], jobid[32], mpi_arg[32];
	json_object *report;
	pid_t agent;
	int job;
	bool watching;

	/* The agent stays (--mpi): the ranks' ends are committed within a second. */
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0,
			(const char *const[]){ "--commit-every", "1", NULL });
	job = slurm_allocate(RANKS);
	snprintf(jobid, sizeof(jobid), "--jobid=%d", job);
	snprintf(mpi_arg, sizeof(mpi_arg), "--mpi=%s", mpi);
	{
		char *argv[] = { "srun", jobid, "--ntasks-per-node=1", "--overlap", "-n", "1",
				 (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint, "-i",
				 "0.2", "--mpi", NULL };

		agent = spawn(argv, NULL, scratch_file("agent.err", agent_err, sizeof(agent_err)));
	}
	watching = wait_for_text_while(agent_err, "heaptap: watching for MPI ranks", agent, 60);
	if (!watching)
		wait_status(agent, 1);
	cr_assert(watching, "the agent never started watching: %s", slurp(agent_err));
	{
		char *argv[] = { "srun", jobid, mpi_arg, "-n", "3", "--overcommit", "--overlap",
				 (char *)target_path(program, target, sizeof(target)),
				 "--truth-dir", (char *)scratch_dir(), NULL };

		cr_assert(eq(int, wait_status(spawn(argv, NULL, scratch_file("srun.err", srun_err,
									   sizeof(srun_err))),
					      180),
			     0),
			  "srun: %s", slurp(srun_err));
	}
	cr_expect(ranks_stored_exited(db, agent), "the ranks' ends never reached the collector: %s",
		  slurp(agent_err));
	/*
	 * The agent's step (the allocation's first, 0) gets SIGTERM, as a job's end gives it.
	 * Not through srun: srun takes SIGTERM as "kill the step", SIGKILL.
	 */
	{
		char step[32];
		char *argv[] = { "scancel", "--signal=TERM", step, NULL };

		snprintf(step, sizeof(step), "%d.0", job);
		cr_expect(eq(int, wait_status(spawn(argv, NULL, NULL), 30), 0), "scancel %s", step);
	}
	cr_expect(eq(int, wait_status(agent, 60), 0), "agent: %s", slurp(agent_err));
	report = stored_report(db, 0);
	cr_expect(eq(sz, json_object_array_length(get(report, "processes")), RANKS),
		  "only the ranks are stored");
	expect_ranks_match_truth(get(report, "processes"), scratch_dir());
	assert_ranks_match_truth(report, RANKS, scratch_dir(), "truth");
	{
		json_object *first = json_object_array_get_idx(get(report, "processes"), 0);
		char want[32];

		snprintf(want, sizeof(want), "%d", job);
		cr_expect(eq(str, (char *)json_object_get_string(get(first, "job")), want),
			  "the run's job is SLURM_JOB_ID");
	}
	cr_expect(eq(int, collector_stop(&c, SIGTERM), 0), "%s", slurp(c.err));
	json_object_put(report);
}

Test(slurm, an_agent_placed_by_srun_streams_every_rank)
{
	agent_beside_an_srun_job("env_rank", "none");
}

/* Open MPI's own ranks under srun (PMIx): MPI_Init and all, the agent placed the same way. */
Test(slurm, an_agent_beside_an_open_mpi_job_under_srun)
{
	agent_beside_an_srun_job("mpi_workers", "pmix");
}
