// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap beside a busy node for hours: a process that ends is forgotten (its pid reused
 * by a stranger is not traced), hundreds of processes within a small descriptor limit,
 * resources flat over 50 MPI jobs, exec and death by a signal reported as such, no
 * signal ever reaching a launcher because of heaptap, output paths checked first.
 */
#include <dirent.h>
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
#include "procs.h"

TestSuite(long_run, .timeout = 600);

static bool is_true(json_object *o, const char *key)
{
	json_object *v = get_opt(o, key);

	return v && json_object_get_boolean(v);
}

/*
 * The report's entries for pid that are a gtchild image (not one that ended in an exec,
 * not the launcher's image between fork and exec); how many.
 */
static size_t gtchild_entries(json_object *report, pid_t pid, json_object **out, size_t max)
{
	json_object *all[8];
	size_t n = processes_of(report, pid, all, 8), found = 0;

	for (size_t i = 0; i < n; i++) {
		if (!is_true(all[i], "exec") &&
		    strstr(json_object_get_string(get(all[i], "command")), "gtchild") &&
		    found < max)
			out[found++] = all[i];
	}
	return found;
}

/* The untraced[] entry for pid (NULL if none, or no such array in the report). */
static json_object *untraced_entry(json_object *report, pid_t pid)
{
	json_object *untraced = get_opt(report, "untraced");

	return untraced ? find_by_int(untraced, "pid", pid) : NULL;
}

/* Assert that the process of truth_path is in the report once, exact; returns it. */
static json_object *expect_exact(json_object *report, const char *truth_path, const char *label)
{
	json_object *truth = load_json(truth_path), *entry[4];
	pid_t pid = json_object_get_int(get(truth, "pid"));
	size_t n = gtchild_entries(report, pid, entry, 4);
	char what[128];

	cr_assert(eq(sz, n, 1), "%s: PID %d is in the report %zu times (once expected)", label, pid,
		  n);
	snprintf(what, sizeof(what), "%s (PID %d)", label, pid);
	assert_libgt_functions(get(entry[0], "functions"), get(truth, "entry_functions"), what);
	json_object_put(truth);
	return entry[0];
}

/* Every truth-<pid>.json in dir, as paths (malloc'ed); how many. */
static size_t truth_files(const char *dir, char **paths, size_t max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	cr_assert(d != NULL, "opendir %s: %s", dir, strerror(errno));
	while ((e = readdir(d)) && n < max) {
		size_t len = strlen(e->d_name);

		if (!strncmp(e->d_name, "truth-", 6) && len > 5 &&
		    !strcmp(e->d_name + len - 5, ".json") &&
		    asprintf(&paths[n], "%s/%s", dir, e->d_name) > 0)
			n++;
	}
	closedir(d);
	return n;
}

static const char *make_dir(const char *name, char *buf, size_t size)
{
	scratch_file(name, buf, size);
	cr_assert(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", buf, strerror(errno));
	return buf;
}

/* "done N" from the spawner's progress file; 0 before its first batch. */
static int progress_done(const char *path)
{
	char *text = slurp(path);
	int done = 0;

	if (text)
		sscanf(text, "done %d", &done);
	free(text);
	return done;
}

Test(long_run, a_reused_pid_is_a_stranger)
{
	char spawner[4096], gt[4096], json[256], err[256], progress[256], dir[256], truth[512];
	char stranger_truth[256], stranger_state[256], *truths[4];
	char *argv[] = { (char *)heaptap_path(), "run", "--follow", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o", "/dev/null",
			 "--", (char *)target_path("spawner", spawner, sizeof(spawner)), "--count",
			 "1", "--progress",
			 (char *)scratch_file("progress", progress, sizeof(progress)),
			 "--then-wait", "--", (char *)target_path("gtchild", gt, sizeof(gt)),
			 "--blocks", "30", "--truth-dir",
			 (char *)make_dir("first", dir, sizeof(dir)), NULL };
	char *stranger_argv[] = { gt, "--blocks", "41", "--truth", stranger_truth, "--state",
				  stranger_state, NULL };
	json_object *report, *state, *entries[8];
	pid_t heaptap, launcher = 0, first, stranger;
	size_t n;
	int status;

	require_bpf();
	scratch_file("stranger.json", stranger_truth, sizeof(stranger_truth));
	scratch_file("stranger-state.json", stranger_state, sizeof(stranger_state));
	heaptap = spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err)));
	for (double deadline = now_s() + 60; progress_done(progress) < 1 && now_s() < deadline;)
		sleep_ms(20);
	if (progress_done(progress) < 1)
		wait_status(heaptap, 1);
	cr_assert(eq(int, progress_done(progress), 1), "the traced child never ended: %s",
		  slurp(err));
	cr_assert(eq(sz, truth_files(dir, truths, 4), 1), "the traced child wrote no truth");
	snprintf(truth, sizeof(truth), "%s", truths[0]);
	free(truths[0]);
	{
		json_object *t = load_json(truth);

		first = json_object_get_int(get(t, "pid"));
		json_object_put(t);
	}

	/* A process of nobody heaptap follows, on the pid of the one that ended. */
	stranger = spawn_at_pid(first, stranger_argv, NULL, NULL);
	cr_assert(eq(int, stranger, first), "could not start a process on PID %d again", first);
	for (double deadline = now_s() + 20; now_s() < deadline;) {
		char st = proc_state(stranger);

		if (st == 'Z' || !st)
			break;
		sleep_ms(20);
	}
	{
		char st = proc_state(stranger);

		status = wait_status(stranger, 1);
		cr_assert(eq(int, status, 0),
			  "the process on the reused PID %d did not end by itself "
			  "(state %c, status %d)",
			  first, st ? st : '-', status);
	}
	state = load_json(stranger_state);
	cr_expect(eq(int, json_object_get_int(get(state, "sigconts")), 0),
		  "the process on the reused PID %d was stopped and let go %d times", first,
		  json_object_get_int(get(state, "sigconts")));
	json_object_put(state);

	launcher = proc_child(heaptap, "spawner");
	cr_assert(launcher > 0, "the traced launcher is gone: %s", slurp(err));
	kill(launcher, SIGUSR1);
	cr_assert(eq(int, wait_status(heaptap, 60), 0), "heaptap run: %s", slurp(err));

	report = load_json(json);
	n = processes_of(report, first, entries, 8);
	for (size_t i = 0; i < n; i++)
		cr_expect(strstr(json_object_get_string(get(entries[i], "command")),
				 "--blocks 41") == NULL,
			  "the process that reused PID %d was traced: %s", first,
			  json_object_get_string(get(entries[i], "command")));
	/* Merged into the old report, the stranger's 41 blocks would show here. */
	expect_exact(report, truth, "the process that exited before its PID was reused");
	json_object_put(report);
}

#define SHORT_LIVED 300
#define NOFILE 256

Test(long_run, three_hundred_short_lived_processes_under_follow)
{
	char spawner[4096], gt[4096], json[256], err[256], progress[256], dir[256];
	char *argv[] = { (char *)heaptap_path(), "run", "--follow", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o", "/dev/null",
			 "--", (char *)target_path("spawner", spawner, sizeof(spawner)), "--count",
			 "300", "--batch", "3", "--progress",
			 (char *)scratch_file("progress", progress, sizeof(progress)), "--",
			 (char *)target_path("gtchild", gt, sizeof(gt)), "--blocks", "3",
			 "--truth-dir", (char *)make_dir("children", dir, sizeof(dir)), NULL };
	static char *truths[SHORT_LIVED + 8];
	long early_fds = -1, late_fds = -1; /* the fewest heaptap held in each window */
	json_object *report;
	pid_t heaptap;
	size_t n;
	int status;

	require_bpf();
	heaptap = spawn_limited(argv, NULL, scratch_file("err.txt", err, sizeof(err)), NOFILE);
	/*
	 * Descriptors while the children come and go, the first third against the last: the
	 * floor of each, since an ended child's links wait a moment for the thread that closes
	 * them (tens at a time when children end quickly); a leak raises the floor.
	 */
	for (double deadline = now_s() + 120; now_s() < deadline; sleep_ms(5)) {
		char st = proc_state(heaptap);
		int done = progress_done(progress);
		long fds = proc_fd_count(heaptap);

		if (!st || st == 'Z')
			break;
		if (fds <= 0)
			continue;
		if (done >= 30 && done < 100 && (early_fds < 0 || fds < early_fds))
			early_fds = fds;
		if (done >= 200 && done < SHORT_LIVED && (late_fds < 0 || fds < late_fds))
			late_fds = fds;
	}
	status = wait_status(heaptap, 1);
	cr_assert(eq(int, status, 0),
		  "heaptap run --follow of %d children (ulimit -n %d): status %d "
		  "after %d children: %s",
		  SHORT_LIVED, NOFILE, status, progress_done(progress), slurp(err));
	cr_expect(early_fds > 0 && late_fds > 0, "heaptap's descriptors were never sampled");
	cr_expect(
		late_fds <= early_fds + 8,
		"heaptap's descriptors grow with the processes it saw: at least %ld while "
		"children 30-100 ran, %ld for children 200-300",
		early_fds, late_fds);

	report = load_json(json);
	n = truth_files(dir, truths, SHORT_LIVED + 8);
	cr_assert(eq(sz, n, SHORT_LIVED), "%zu of %d children wrote their truth", n, SHORT_LIVED);
	/*
	 * At most 3 children live at once, so no descriptor limit can really be hit: every
	 * one must be traced, none listed untraced.
	 */
	for (size_t i = 0; i < n; i++) {
		json_object *truth = load_json(truths[i]), *entry[4], *u;
		pid_t pid = json_object_get_int(get(truth, "pid"));
		char what[64];

		u = untraced_entry(report, pid);
		cr_assert(u == NULL, "child %d was not traced: %s", pid, json_object_get_string(u));
		cr_assert(eq(sz, gtchild_entries(report, pid, entry, 4), 1),
			  "child %d is not in the report once, nor listed untraced (%zu of %d "
			  "children checked)", pid, i, SHORT_LIVED);
		snprintf(what, sizeof(what), "child %d", pid);
		assert_libgt_functions(get(entry[0], "functions"), get(truth, "entry_functions"),
				       what);
		json_object_put(truth);
		free(truths[i]);
	}
	json_object_put(report);
}

#define IDLE 200
#define GROUPS 4

static pid_t idle_pids[IDLE];

/* Whatever failed, the idle processes go (they are in process groups of their own). */
static void kill_idle(void)
{
	for (int i = 0; i < IDLE; i++) {
		if (idle_pids[i] > 0)
			kill(idle_pids[i], SIGKILL);
	}
}

Test(long_run, two_hundred_idle_processes_attached, .fini = kill_idle)
{
	char gt[4096], json[256], err[256], dir[256];
	char *target_argv[] = { (char *)target_path("gtchild", gt, sizeof(gt)), "--wait",
				"--blocks", "4", "--truth-dir",
				(char *)make_dir("idle", dir, sizeof(dir)), NULL };
	static char pid_list[IDLE * 8];
	char *argv[] = { (char *)heaptap_path(), "attach", "-p", pid_list, "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o", "/dev/null",
			 NULL };
	pid_t pids[IDLE], heaptap;
	long fds[GROUPS] = { 0 };
	int ready = 0;
	size_t listed = 0, len = 0, said = 0;
	json_object *report;
	int status;

	require_bpf();
	for (int i = 0; i < IDLE; i++) {
		idle_pids[i] = pids[i] = spawn(target_argv, NULL, NULL);
		len += snprintf(pid_list + len, sizeof(pid_list) - len, "%s%d", i ? "," : "",
				pids[i]);
	}
	for (double deadline = now_s() + 60; ready < IDLE && now_s() < deadline;) {
		if (proc_catches_signal(pids[ready], SIGUSR1))
			ready++;
		else
			sleep_ms(5);
	}
	cr_assert(eq(int, ready, IDLE), "only %d of %d idle processes got ready", ready, IDLE);
	heaptap = spawn_limited(argv, NULL, scratch_file("err.txt", err, sizeof(err)), NOFILE);
	/* Each process is said attached, or not traced (with why) if a limit is really hit. */
	for (double deadline = now_s() + 120; now_s() < deadline; sleep_ms(50)) {
		char st = proc_state(heaptap);

		said = count_text(err, "heaptap: attached to PID ") + count_text(err, "not traced");
		if (said >= IDLE || !st || st == 'Z')
			break;
	}
	if (said < IDLE) {
		kill_idle();
		status = wait_status(heaptap, 5);
		cr_assert(false,
			  "attach -p of %d processes with ulimit -n %d: %zu said attached or "
			  "not traced (status %d): %s",
			  IDLE, NOFILE, said, status, slurp(err));
	}
	fds[0] = proc_fd_count(heaptap);
	/* Released a group at a time: heaptap's descriptors must shrink, never grow. */
	for (int g = 0; g < GROUPS; g++) {
		for (int i = g * IDLE / GROUPS; i < (g + 1) * IDLE / GROUPS; i++)
			kill(pids[i], SIGUSR1);
		for (int i = g * IDLE / GROUPS; i < (g + 1) * IDLE / GROUPS; i++) {
			status = wait_status(pids[i], 60);
			cr_assert(eq(int, status, 0),
				  "idle process %d, attached, then let go: status %d", pids[i],
				  status);
			idle_pids[i] = 0;
		}
		if (g + 1 < GROUPS) {
			sleep_ms(300); /* its exit events read */
			fds[g + 1] = proc_fd_count(heaptap);
		}
	}
	status = wait_status(heaptap, 60);
	for (int g = 1; g < GROUPS; g++)
		cr_expect(
			fds[g] <= fds[g - 1] + 4,
			"heaptap's descriptors grew from %ld to %ld as %d of its processes exited",
			fds[g - 1], fds[g], g * IDLE / GROUPS);

	report = load_json(json);
	for (int i = 0; i < IDLE; i++) {
		char truth[512], what[64];
		json_object *u = untraced_entry(report, pids[i]), *reason;

		if (u) {
			/* 200 live processes may really exceed 256 descriptors: said, with why. */
			reason = get(u, "reason");
			cr_expect(strlen(json_object_get_string(reason)) > 0,
				  "PID %d is listed untraced without a reason", pids[i]);
			listed++;
			continue;
		}
		snprintf(truth, sizeof(truth), "%s/truth-%d.json", dir, pids[i]);
		snprintf(what, sizeof(what), "idle process %d of %d", i + 1, IDLE);
		expect_exact(report, truth, what);
	}
	/* Processes left untraced: the exit status says so. */
	if (listed)
		cr_expect(status > 0, "%zu of %d processes untraced, yet heaptap exited %d", listed,
			  IDLE, status);
	else
		cr_expect(eq(int, status, 0), "heaptap attach of %d processes: status %d: %s", IDLE,
			  status, slurp(err));
	cr_log_info("%zu of %d processes listed untraced", listed, IDLE);
	json_object_put(report);
}

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

Test(long_run, fifty_mpi_jobs_under_attach_mpi)
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
	heaptap = spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err)));
	if (!wait_for_text_while(err, "heaptap: watching for MPI ranks", heaptap, 30)) {
		wait_status(heaptap, 1);
		cr_assert(false, "attach --mpi never started watching: %s", slurp(err));
	}
	for (int j = 1; j <= SOAK_JOBS; j++) {
		snprintf(name, sizeof(name), "job-%d", j);
		make_dir(name, dir, sizeof(dir));
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
				if (!is_true(entries[i], "exec"))
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
			if (is_true(entry, "calltree_dropped"))
				trees_dropped++;
			else if (json_object_array_length(get(entry, "calltree")) > 0)
				trees_kept++;
			json_object_put(truth);
		}
	}
	cr_expect(trees_dropped > 0, "the ended trees never exceeded --tree-budget 2M");
	cr_expect(trees_kept > 0, "no ended rank kept its tree");
	json_object_put(report);
}

Test(long_run, exec_closes_the_old_image)
{
	char gt[4096], json[256], err[256], before[256], after[256];
	char *argv[] = { (char *)heaptap_path(), "run", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o", "/dev/null",
			 "--", (char *)target_path("gtchild", gt, sizeof(gt)), "--blocks", "20",
			 "--truth", (char *)scratch_file("before.json", before, sizeof(before)),
			 "--exec", gt, "--blocks", "7", "--truth",
			 (char *)scratch_file("after.json", after, sizeof(after)), NULL };
	json_object *report, *truth, *entries[8], *old_image = NULL, *new_image = NULL;
	size_t n;
	pid_t pid;

	require_bpf();
	cr_assert(eq(int,
		     wait_status(spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err))), 60),
		     0),
		  "heaptap run: %s", slurp(err));
	report = load_json(json);
	truth = load_json(before);
	pid = json_object_get_int(get(truth, "pid"));
	n = processes_of(report, pid, entries, 8);
	cr_assert(eq(sz, n, 2),
		  "PID %d, which exec'd, has %zu report entries (2: before and after "
		  "the exec)",
		  pid, n);
	for (size_t i = 0; i < n; i++) {
		if (is_true(entries[i], "exec"))
			old_image = entries[i];
		else
			new_image = entries[i];
	}
	cr_assert(old_image != NULL && new_image != NULL,
		  "one entry must say exec: true (the image before), the other not");
	assert_libgt_functions(get(old_image, "functions"), get(truth, "entry_functions"),
			       "the image before the exec");
	json_object_put(truth);
	truth = load_json(after);
	assert_libgt_functions(get(new_image, "functions"), get(truth, "entry_functions"),
			       "the image after the exec");
	json_object_put(truth);
	json_object_put(report);
}

/*
 * The text report's last "PID: <pid>..." line (malloc'ed), or NULL: a pid's images come
 * in the order they ran, so the last is the one that ended the process.
 */
static char *pid_line(const char *text_path, pid_t pid)
{
	char *text = slurp(text_path), *save = NULL, *line = NULL, head[32];
	size_t len = snprintf(head, sizeof(head), "PID: %d", pid);

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, head, len) && (l[len] == ',' || l[len] == '\0')) {
			free(line);
			line = strdup(l);
		}
	}
	free(text);
	return line;
}

Test(long_run, how_a_process_ended)
{
	char gt[4096], json[256], txt[256], err[256], exits[256], killed[256], script[9000];
	char *argv[] = { (char *)heaptap_path(), "run", "--follow", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o",
			 (char *)scratch_file("report.txt", txt, sizeof(txt)), "--", "sh", "-c",
			 script, NULL };
	json_object *report, *entry, *v;
	pid_t exits_pid, killed_pid;
	char *line;

	require_bpf();
	target_path("gtchild", gt, sizeof(gt));
	snprintf(script, sizeof(script),
		 "%s --blocks 5 --truth %s --exit 3; "
		 "%s --blocks 6 --truth %s --raise 9; exit 0",
		 gt, scratch_file("exits.json", exits, sizeof(exits)), gt,
		 scratch_file("killed.json", killed, sizeof(killed)));
	cr_assert(eq(int,
		     wait_status(spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err))), 60),
		     0),
		  "heaptap run --follow: %s", slurp(err));
	report = load_json(json);

	entry = expect_exact(report, exits, "the process that exited with status 3");
	exits_pid = json_object_get_int(get(entry, "pid"));
	v = get_opt(entry, "exit_status");
	cr_expect(v && json_object_get_int(v) == 3, "PID %d exited with status 3; exit_status: %s",
		  exits_pid, v ? json_object_get_string(v) : "absent");
	v = get_opt(entry, "signal");
	cr_expect(v == NULL && get_opt(entry, "exit_status") != NULL,
		  "PID %d exited normally; signal: %s", exits_pid,
		  v ? json_object_get_string(v) : "null or absent");

	entry = expect_exact(report, killed, "the process killed by signal 9");
	killed_pid = json_object_get_int(get(entry, "pid"));
	v = get_opt(entry, "signal");
	cr_expect(v && json_object_get_int(v) == 9, "PID %d was killed by signal 9; signal: %s",
		  killed_pid, v ? json_object_get_string(v) : "absent");
	v = get_opt(entry, "exit_status");
	cr_expect(v == NULL && get_opt(entry, "signal") != NULL,
		  "PID %d was killed: exit_status must be null, is %s", killed_pid,
		  v ? json_object_get_string(v) : "null or absent");
	json_object_put(report);

	line = pid_line(txt, exits_pid);
	cr_expect(line && strstr(line, "status 3"), "text report, PID %d: \"%s\" says no status 3",
		  exits_pid, line);
	free(line);
	line = pid_line(txt, killed_pid);
	cr_expect(line && strstr(line, "signal 9"), "text report, PID %d: \"%s\" says no signal 9",
		  killed_pid, line);
	free(line);
}

Test(long_run, no_signal_reaches_mpirun)
{
	char bin[4096], json[256], err[256], dir[256];
	char *argv[] = { (char *)heaptap_path(), "run", "--follow", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o", "/dev/null",
			 "--", "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
			 (char *)target_path("mpi_rank", bin, sizeof(bin)), "--truth-dir",
			 (char *)make_dir("ranks", dir, sizeof(dir)), NULL };
	json_object *report, *truth, *entries[8], *rank = NULL;
	size_t forwarded;

	require_bpf();
	cr_assert(eq(int,
		     wait_status(spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err))), 180),
		     0),
		  "heaptap run --follow -- mpirun: %s", slurp(err));
	/* mpirun relays every signal it gets to its ranks, and says so on stderr. */
	forwarded = count_text(err, "Forwarding signal");
	cr_expect(eq(sz, forwarded, 0), "mpirun was sent %zu signals under heaptap", forwarded);

	report = load_json(json);
	for (int r = 0; r < 2; r++) {
		char truth_path[512], what[32];
		size_t n;

		snprintf(truth_path, sizeof(truth_path), "%s/truth-%d.json", dir, r);
		truth = load_json(truth_path);
		n = processes_of(report, json_object_get_int(get(truth, "pid")), entries, 8);
		rank = NULL;
		for (size_t i = 0; i < n; i++) {
			if (!is_true(entries[i], "exec"))
				rank = entries[i];
		}
		cr_assert(rank != NULL, "rank %d is not in the report", r);
		snprintf(what, sizeof(what), "rank %d", r);
		assert_libgt_functions(get(rank, "functions"), get(truth, "entry_functions"), what);
		json_object_put(truth);
	}
	json_object_put(report);
}

Test(long_run, a_bad_output_path_is_found_before_the_command_runs)
{
	static const char *const options[] = { "--json", "-o", "--stacks" };
	char gt[4096], truth[256], err[256];

	require_bpf();
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		char *argv[] = { (char *)heaptap_path(), "run", (char *)options[i],
				 "/nonexistent-dir/report", "--",
				 (char *)target_path("gtchild", gt, sizeof(gt)), "--truth",
				 (char *)scratch_file("ran.json", truth, sizeof(truth)), NULL };
		int status = wait_status(
			spawn(argv, NULL, scratch_file("err.txt", err, sizeof(err))), 60);
		char *said = slurp(err);

		cr_expect(eq(int, status, 2),
			  "run %s /nonexistent-dir/report: status %d (2 expected)", options[i],
			  status);
		cr_expect(access(truth, F_OK) != 0,
			  "run %s /nonexistent-dir/report ran the command before failing",
			  options[i]);
		cr_expect(said && strchr(said, '\n') && strchr(said, '\n')[1] == '\0',
			  "run %s /nonexistent-dir/report: not one line: %s", options[i], said);
		free(said);
		unlink(truth);
	}
}
