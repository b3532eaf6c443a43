// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * How a process's tracing ends: an exec closes the old image's report entry, an exit status
 * and a death by a signal are reported as such, no signal reaches a launcher because of
 * heaptap, and a bad output path is found before the command runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"
#include "gtchild_report.h"

TestSuite(process_end, .timeout = 600);

Test(process_end, exec_closes_the_old_image)
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
		if (json_flag(entries[i], "exec"))
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
 * The text report's last "==== PID <pid>..." heading (malloc'ed), or NULL: a pid's images come
 * in the order they ran, so the last is the one that ended the process.
 */
static char *pid_line(const char *text_path, pid_t pid)
{
	char *text = slurp(text_path), *save = NULL, *line = NULL, head[32];
	size_t len = snprintf(head, sizeof(head), "==== PID %d", pid);

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, head, len) && (l[len] == ',' || l[len] == ':')) {
			free(line);
			line = strdup(l);
		}
	}
	free(text);
	return line;
}

Test(process_end, how_a_process_ended)
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

Test(process_end, no_signal_reaches_mpirun)
{
	char bin[4096], json[256], err[256], dir[256];
	char *argv[] = { (char *)heaptap_path(), "run", "--follow", "--json",
			 (char *)scratch_file("report.json", json, sizeof(json)), "-o", "/dev/null",
			 "--", "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2",
			 (char *)target_path("mpi_rank", bin, sizeof(bin)), "--truth-dir",
			 (char *)scratch_subdir("ranks", dir, sizeof(dir)), NULL };
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
			if (!json_flag(entries[i], "exec"))
				rank = entries[i];
		}
		cr_assert(rank != NULL, "rank %d is not in the report", r);
		snprintf(what, sizeof(what), "rank %d", r);
		assert_libgt_functions(get(rank, "functions"), get(truth, "entry_functions"), what);
		json_object_put(truth);
	}
	json_object_put(report);
}

Test(process_end, a_bad_output_path_is_found_before_the_command_runs)
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
