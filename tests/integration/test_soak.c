// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap attach --mpi beside fifty MPI jobs, one after another: its descriptors and memory
 * stay flat once the ended ranks' trees reach --tree-budget, and every rank of every job
 * is in its report, exact. The stacks the node's ranks share are forgotten between jobs
 * (HEAPTAP_SHARED_STACKS_KEEP=0: whenever no process is traced, not only once they fill
 * half the map), so every job after the first names them anew.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"
#include "procs.h"

TestSuite(soak, .timeout = 600);

#define SOAK_JOBS 50

struct soak_sample {
	long rss_kib, fds;
};

/* The least of each figure over jobs first..last. */
static struct soak_sample least(const struct soak_sample *at, int first, int last)
{
	struct soak_sample l = at[first];

	for (int j = first + 1; j <= last; j++) {
		if (at[j].rss_kib < l.rss_kib)
			l.rss_kib = at[j].rss_kib;
		if (at[j].fds < l.fds)
			l.fds = at[j].fds;
	}
	return l;
}

Test(soak, fifty_mpi_jobs_under_attach_mpi)
{
	char bin[4096], json[256], err[256], job_err[256], dir[256], name[64];
	/*
	 * Ended ranks' call trees and allocation sites stay for the report up to --tree-budget,
	 * then the oldest go: a budget small enough to be reached before job 6 (a rank keeps
	 * some 8 MiB), so what grows after is a leak.
	 */
	char *argv[] = { (char *)heaptap_path(), "attach", "--mpi", "--tree-budget", "24M",
			 "--json", (char *)scratch_file("report.json", json, sizeof(json)), "-o",
			 "/dev/null", NULL };
	int trees_dropped = 0, trees_kept = 0;
	char *job[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
			(char *)target_path("mpi_rank", bin, sizeof(bin)), "--truth-dir", dir,
			NULL };
	struct soak_sample at[SOAK_JOBS + 1];
	json_object *report;
	pid_t heaptap;
	int status;

	require_bpf();
	setenv("HEAPTAP_SHARED_STACKS_KEEP", "0", 1);
	heaptap = spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err)));
	if (!wait_for_text_while(err, "heaptap: watching for MPI ranks", heaptap, 30)) {
		wait_status(heaptap, 1);
		cr_assert(false, "attach --mpi never started watching: %s", slurp(err));
	}
	for (int j = 1; j <= SOAK_JOBS; j++) {
		snprintf(name, sizeof(name), "job-%d", j);
		scratch_subdir(name, dir, sizeof(dir));
		status = wait_status(
			spawn(job, NULL, scratch_file("job.err", job_err, sizeof(job_err))), 120);
		if (status != 0)
			kill(heaptap, SIGKILL);
		cr_assert(eq(int, status, 0), "MPI job %d of %d under attach --mpi: status %d: %s",
			  j, SOAK_JOBS, status, slurp(job_err));
		sleep_ms(200); /* the ranks' exits read */
		at[j].rss_kib = proc_rss_kib(heaptap);
		at[j].fds = proc_fd_count(heaptap);
	}
	kill(heaptap, SIGINT);
	status = wait_status(heaptap, 60);
	cr_assert(eq(int, status, 0), "heaptap attach --mpi after %d jobs: status %d: %s",
		  SOAK_JOBS, status, slurp(err));
	/*
	 * The least over five jobs, early and late: attach --mpi also traces whatever other
	 * ranks run on the node meanwhile, and their descriptors come and go.
	 */
	{
		struct soak_sample early = least(at, 6, 10),
				   late = least(at, SOAK_JOBS - 4, SOAK_JOBS);

		cr_expect(
			late.fds <= early.fds + 4,
			"heaptap's descriptors grow with jobs: %ld after jobs 6-10, %ld after jobs "
			"%d-%d",
			early.fds, late.fds, SOAK_JOBS - 4, SOAK_JOBS);
		long highest = early.rss_kib;

		/*
		 * A leak raises the floor window after window. When heaptap falls behind (a
		 * loaded machine), what waits for it raises its heap's high-water mark once,
		 * and the heap keeps it: the floor at the end may stand on the highest floor
		 * the run reached before, not above it.
		 */
		for (int first = 11; first + 4 < SOAK_JOBS - 4; first += 5) {
			long floor = least(at, first, first + 4).rss_kib;

			if (floor > highest)
				highest = floor;
		}
		cr_expect(
			late.rss_kib - highest < 2048 || late.rss_kib * 10 < early.rss_kib * 11,
			"heaptap's memory grows with jobs: %ld KiB after jobs 6-10, at most %ld KiB "
			"in later windows, %ld KiB after jobs %d-%d (2 MiB over the highest or 10%% "
			"over the first allowed)",
			early.rss_kib, highest, late.rss_kib, SOAK_JOBS - 4, SOAK_JOBS);
	}

	/* Every rank of every job, once, exact against its own truth. */
	report = load_json(json);
	for (int j = 1; j <= SOAK_JOBS; j++) {
		for (int rank = 0; rank < 2; rank++) {
			char truth_path[512], what[64];
			json_object *truth, *entries[8], *entry = NULL;
			size_t n;
			pid_t pid;

			snprintf(truth_path, sizeof(truth_path), "%s/job-%d/truth-%d.json",
				 scratch_dir(), j, rank);
			truth = load_json(truth_path);
			pid = json_object_get_int(get(truth, "pid"));
			n = processes_of(report, pid, entries, 8);
			for (size_t i = 0; i < n; i++) {
				if (!json_flag(entries[i], "exec"))
					entry = entries[i];
			}
			cr_assert(entry != NULL, "job %d rank %d (PID %d) is not in the report", j,
				  rank, pid);
			cr_expect(eq(int, json_object_get_int(get(entry, "rank")), rank),
				  "job %d: PID %d reported as rank %d", j, pid,
				  json_object_get_int(get(entry, "rank")));
			snprintf(what, sizeof(what), "job %d rank %d", j, rank);
			assert_libgt_functions(get(entry, "functions"),
					       get(truth, "entry_functions"), what);
			if (json_flag(entry, "calltree_dropped"))
				trees_dropped++;
			else if (json_object_array_length(get(entry, "calltree")) > 0)
				trees_kept++;
			json_object_put(truth);
		}
	}
	cr_expect(json_object_get_uint64(get(get(get(report, "consumers"), "stack_map"),
					     "forgotten")) > 0,
		  "the shared stacks were never forgotten between jobs");
	cr_expect(trees_dropped > 0, "the ended trees never exceeded --tree-budget 2M");
	cr_expect(trees_kept > 0, "no ended rank kept its tree");
	json_object_put(report);
}
