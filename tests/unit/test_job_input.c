// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Jobs read back from JSON reports: which processes are ranks, and what is two jobs. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "job_input.h"

static char dir[] = "/tmp/heaptap-job-input-XXXXXX";
static bool dir_made; /* mkdtemp's letters may be X too: the template cannot tell */

/* The test's files, at its end (each test runs in its own process, with its own dir). */
static void remove_dir(void)
{
	char command[64];

	if (dir_made) {
		snprintf(command, sizeof(command), "rm -rf %s", dir);
		cr_assert(eq(int, system(command), 0));
	}
}

TestSuite(job_input);

#define BAL(cur, max) "\"current\": " #cur ", \"min\": 0, \"max\": " #max ", \"requested\": 0, " \
		      "\"calls\": {\"malloc\": 2, \"free\": 1}"

/* A report file of these processes (a JSON array's items); its path in path. */
static void write_report(const char *name, const char *processes, char path[256])
{
	FILE *f;

	if (dir_made || (dir_made = mkdtemp(dir) != NULL)) {
		snprintf(path, 256, "%s/%s", dir, name);
		f = fopen(path, "w");
		cr_assert(f != NULL);
		fprintf(f, "{\"heaptap\": 1, \"attribution\": \"caller\", \"processes\": [%s], "
			   "\"untraced\": [{\"pid\": 9, \"command\": \"x\", \"reason\": \"gone\"}]}\n",
			processes);
		fclose(f);
		return;
	}
	cr_assert(false, "mkdtemp");
}

Test(job_input, an_image_that_exec_d_is_no_rank_and_rankless_processes_are_others)
{
	char path[256];
	const char *paths[] = { path };
	struct job j;

	write_report("a.json",
		     "{\"pid\": 10, \"rank\": 1, \"exec\": true, \"total\": {" BAL(5, 5) "}},"
		     "{\"pid\": 10, \"rank\": 1, \"world_size\": 2, \"total\": {" BAL(7, 9) "},"
		     " \"samples\": [[0.5, 1, 2], [1.5, 7, 9]]},"
		     "{\"pid\": 11, \"rank\": 0, \"world_size\": 2, \"total\": {" BAL(1, 3) "}},"
		     "{\"pid\": 12, \"rank\": null, \"total\": {" BAL(100, 100) "}}",
		     path);
	cr_assert(eq(int, job__read(paths, 1, 0, &j), 0));
	cr_assert(j.mpi);
	cr_assert(eq(sz, j.nr, 2));
	cr_assert(eq(sz, j.nr_other, 1));
	cr_assert(eq(sz, j.nr_untraced, 1));
	cr_assert(eq(str, j.attribution, "caller"));
	cr_assert(eq(int, j.ranks[0].rank, 0), "sorted by rank");
	cr_assert(eq(int, j.ranks[1].pid, 10));
	cr_assert(eq(i64, j.ranks[1].total.current, 7), "the image after the exec");
	cr_assert(eq(sz, j.ranks[1].nr_samples, 2));
	cr_assert(eq(dbl, j.ranks[1].samples[1].t, 1.5));
	cr_assert(eq(i64, j.ranks[1].samples[1].max, 9));
	job__clear(&j);
	remove_dir();
}

Test(job_input, processes_without_ranks_are_numbered_in_order)
{
	char a[256], b[256];
	const char *paths[] = { a, b };
	struct job j;

	write_report("p1.json", "{\"pid\": 30, \"rank\": null, \"total\": {" BAL(1, 1) "}}", a);
	write_report("p2.json",
		     "{\"pid\": 20, \"rank\": null, \"total\": {" BAL(2, 2) "}},"
		     "{\"pid\": 21, \"total\": {" BAL(3, 3) "}}",
		     b);
	cr_assert(eq(int, job__read(paths, 2, 0, &j), 0));
	cr_assert(not(j.mpi));
	cr_assert(eq(sz, j.nr, 3));
	cr_assert(eq(int, j.ranks[0].pid, 30));
	cr_assert(eq(int, j.ranks[2].rank, 2));
	cr_assert(eq(int, j.ranks[2].pid, 21));
	cr_assert(eq(str, (char *)j.ranks[2].source, b));
	job__clear(&j);
	remove_dir();
}

Test(job_input, ranks_of_two_world_sizes_are_two_jobs)
{
	char a[256], b[256];
	const char *paths[] = { a, b };
	struct job j;

	write_report("w2.json", "{\"pid\": 1, \"rank\": 0, \"world_size\": 2, \"total\": {" BAL(1, 1) "}}", a);
	write_report("w4.json", "{\"pid\": 2, \"rank\": 1, \"world_size\": 4, \"total\": {" BAL(1, 1) "}}", b);
	cr_assert(eq(int, job__read(paths, 2, 0, &j), -EINVAL));
	cr_assert(eq(sz, j.nr, 0), "nothing kept");
	remove_dir();
}

Test(job_input, a_bad_balance_is_refused)
{
	char a[256];
	const char *paths[] = { a };
	struct job j;

	write_report("bad.json", "{\"pid\": 1, \"rank\": 0, \"total\": {\"current\": \"x\"}}", a);
	cr_assert(eq(int, job__read(paths, 1, 0, &j), -EINVAL));
	remove_dir();
}

/* top -b --json: a report per line; the last whole one counts, a line cut short does not. */
Test(job_input, of_top_s_snapshots_the_last_whole_one)
{
	char a[256], line[512];
	const char *paths[] = { a };
	struct job j;
	FILE *f;

	write_report("top.json", "{\"pid\": 1, \"rank\": 0, \"total\": {" BAL(1, 1) "}}", a);
	f = fopen(a, "a");
	cr_assert(f != NULL);
	fprintf(f, "{\"heaptap\": 1, \"processes\": [{\"pid\": 1, \"rank\": 0, \"total\": {"
		   BAL(6, 8) "}}]}\n");
	snprintf(line, sizeof(line), "{\"heaptap\": 1, \"processes\": [{\"pid\": 1, \"ra");
	fputs(line, f);
	fclose(f);
	cr_assert(eq(int, job__read(paths, 1, 0, &j), 0));
	cr_assert(eq(sz, j.nr, 1));
	cr_assert(eq(i64, j.ranks[0].total.current, 6));
	cr_assert(eq(i64, j.ranks[0].total.max, 8));
	job__clear(&j);
	remove_dir();
}

/* The call trees are skipped unread, whatever their names hold; what follows them is read. */
Test(job_input, call_trees_are_skipped_whatever_their_names)
{
	char a[256];
	const char *paths[] = { a };
	struct job j;

	write_report("tree.json",
		     "{\"pid\": 1, \"rank\": 0, \"command\": \"calltree\", \"calltree\": [{\"path\": "
		     "[{\"function\": \"a]}\\\"[{\", \"library\": \"\\\\\"}], " BAL(1, 1) "}],"
		     " \"total\": {" BAL(4, 5) "}, \"functions\": [{\"function\": \"f\\\"]\", "
		     "\"library\": \"l\", " BAL(4, 5) "}]}",
		     a);
	cr_assert(eq(int, job__read(paths, 1, 0, &j), 0));
	cr_assert(eq(str, j.ranks[0].command, "calltree"));
	cr_assert(eq(i64, j.ranks[0].total.max, 5));
	cr_assert(eq(sz, j.ranks[0].nr_functions, 1));
	cr_assert(eq(str, j.ranks[0].functions[0].function, "f\"]"));
	job__clear(&j);
	remove_dir();
}
