// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap top: batch snapshots in the report schema, their count, and the full-screen
 * view driven in tmux as a person would (read the screen, open a process, sort, quit).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(top, .timeout = 120);

/* The last line of a file, malloc'ed. */
static char *last_line(const char *path, size_t *lines)
{
	char *text = slurp(path), *line, *last = NULL, *save = NULL;

	cr_assert(text != NULL);
	*lines = 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		last = line;
		(*lines)++;
	}
	last = last ? strdup(last) : NULL;
	free(text);
	return last;
}

Test(top, batch_json_ends_with_the_truth)
{
	char bin[4096], truth[256], out[256], *line;
	char *argv[] = { (char *)heaptap_path(), "top", "-b", "--json", "-i", "0.2", "--follow",
			 "--", (char *)target_path("groundtruth", bin, sizeof(bin)), "--truth",
			 (char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };
	json_object *snapshot, *process, *want_threads;
	size_t lines;
	double started, ended, at;

	require_bpf();
	started = time(NULL);
	cr_assert(eq(int, wait_status(spawn(argv, scratch_file("out.jsonl", out, sizeof(out)), NULL),
				      60),
		     0), "top -b ends by itself once its targets have exited");
	ended = time(NULL) + 1;
	line = last_line(out, &lines);
	cr_assert(line != NULL && lines >= 1);
	snapshot = json_tokener_parse(line);
	cr_assert(snapshot != NULL, "not one JSON report per line: %s", line);
	cr_assert(eq(int, json_object_get_int(get(snapshot, "heaptap")), 2));
	/* Each snapshot says when it was taken, in Unix seconds. */
	at = json_object_get_double(get(snapshot, "timestamp"));
	cr_expect(at >= started && at <= ended, "timestamp %.3f not within the run [%.0f, %.0f]",
		  at, started, ended);
	process = json_object_array_get_idx(get(snapshot, "processes"), 0);
	cr_assert(process != NULL);
	cr_expect(json_object_get_boolean(get(process, "exited")));
	want_threads = get(load_json(truth), "threads");
	assert_threads(get(process, "threads"), want_threads, "the last snapshot");
	json_object_put(snapshot);
	free(line);
}

Test(top, batch_stops_after_n_refreshes)
{
	char bin[4096], truth[256], out[256], pid_arg[32];
	char *target_argv[] = { (char *)target_path("groundtruth", bin, sizeof(bin)), "--wait",
				"--truth", (char *)scratch_file("truth.json", truth, sizeof(truth)),
				NULL };
	char *argv[] = { (char *)heaptap_path(), "top", "-b", "-n", "3", "-i", "0.2", "-p",
			 pid_arg, NULL };
	pid_t target;
	size_t lines = 0;
	char *text;

	require_bpf();
	target = spawn(target_argv, NULL, NULL);
	snprintf(pid_arg, sizeof(pid_arg), "%d", target);
	cr_assert(eq(int, wait_status(spawn(argv, scratch_file("out.txt", out, sizeof(out)), NULL),
				      30),
		     0));
	text = slurp(out);
	for (char *p = text; p && (p = strstr(p, "\n RANK      PID      CURRENT")); p++)
		lines++;
	cr_expect(eq(sz, lines, 3), "three tables of rows: %s", text);
	cr_expect(eq(sz, count_text(out, "==== Statistics of overall"), 0),
		  "whole reports without --full: %s", text);
	free(text);
	/* --full: each snapshot is every process's whole report. */
	argv[2] = "--full";
	cr_assert(eq(int, wait_status(spawn(argv, out, NULL), 30), 0));
	cr_expect(eq(sz, count_text(out, "==== Statistics of overall"), 3), "three reports");
	/* The target was watched, not harmed: it still does all its work. */
	kill(target, SIGUSR1);
	cr_expect(eq(int, wait_status(target, 30), 0));
}

/*
 * top -b's rows: the last table's row of a command that ended holds the totals run's
 * report has for the same program (the ground truth's program is deterministic: it makes
 * the same calls in every run), its state, its rank column and its command.
 */
Test(top, batch_rows_hold_the_process_totals)
{
	char bin[4096], truth[256], out[256], json[256], pid[16], want[4608], *text, *row;
	char *top_argv[] = { (char *)heaptap_path(), "top", "-b", "-i", "0.2", "--follow", "--",
			     (char *)target_path("groundtruth", bin, sizeof(bin)), "--truth",
			     (char *)scratch_file("truth.json", truth, sizeof(truth)), NULL };
	char *run_argv[] = { (char *)heaptap_path(), "run", "-o", "/dev/null", "--json",
			     (char *)scratch_file("run.json", json, sizeof(json)), "--", bin,
			     "--truth", truth, NULL };
	json_object *report, *total, *calls;
	long long sum = 0;

	require_bpf();
	cr_assert(eq(int, wait_status(spawn(run_argv, NULL, NULL), 60), 0));
	report = load_json(json);
	total = get(json_object_array_get_idx(get(report, "processes"), 0), "total");
	calls = get(total, "calls");
	json_object_object_foreach(calls, name, count) {
		(void)name;
		sum += json_object_get_int64(count);
	}
	cr_assert(eq(int, wait_status(spawn(top_argv, scratch_file("top.txt", out, sizeof(out)),
					    NULL),
				      60),
		     0));
	text = slurp(out);
	cr_assert(text != NULL);
	row = strstr(text, "heaptap top ");
	cr_assert(row != NULL, "no table in: %s", text);
	/* The last table's row: the program has exited by then. */
	for (char *p = row; (p = strstr(p + 1, "\nheaptap top ")); row = p + 1)
		;
	row = strchr(strchr(row, '\n') + 1, '\n') + 1; /* past the header and the columns */
	snprintf(pid, sizeof(pid), "%.*s", (int)strspn(row + 6, " 0123456789"), row + 6);
	snprintf(want, sizeof(want), "%5s %8d %12lld %12lld", "-", atoi(pid),
		 (long long)json_object_get_int64(get(total, "current")),
		 (long long)json_object_get_int64(get(total, "max")));
	cr_expect(strncmp(row, want, strlen(want)) == 0, "want '%s...' in:\n%s", want, text);
	snprintf(want, sizeof(want), " %12lld exited   %s --truth %s\n", sum, bin, truth);
	cr_expect(strstr(row, want) != NULL, "want '%s' in:\n%s", want, text);
	json_object_put(report);
	free(text);
}

/* Run a tmux command; its standard output, malloc'ed. */
static char *tmux(const char *args)
{
	char cmd[8192], *out;
	FILE *p;
	size_t len = 0;

	snprintf(cmd, sizeof(cmd), "tmux -L heaptap-test %s", args);
	p = popen(cmd, "r");
	cr_assert(p != NULL);
	out = NULL;
	if (getdelim(&out, &len, '\0', p) < 0) {
		free(out);
		out = strdup("");
	}
	pclose(p);
	return out;
}

/* Wait until the screen shows text; the screen, malloc'ed, or NULL after timeout_s. */
static char *screen_with(const char *text, int timeout_s)
{
	struct timespec pause = { 0, 100 * 1000 * 1000 };

	for (int i = 0; i < timeout_s * 10; i++) {
		char *screen = tmux("capture-pane -p -t top");

		if (strstr(screen, text))
			return screen;
		free(screen);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

/* What the view prints for a byte count: one decimal and a unit past 1 KiB. */
static void human(long long bytes, char *buf, size_t size)
{
	const char *units = "BKMGTP";
	double value = bytes;
	int unit = 0;

	while ((value >= 1024 || value <= -1024) && unit < 5) {
		value /= 1024;
		unit++;
	}
	if (unit == 0)
		snprintf(buf, size, "%lldB", bytes);
	else
		snprintf(buf, size, "%.1f%c", value, units[unit]);
}

Test(top, the_full_screen_view_in_tmux)
{
	char bin[4096], truth[256], cmd[8192], want[64], *screen;
	json_object *t, *worker;
	pid_t target;

	require_bpf();
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("needs tmux");
	free(tmux("kill-server 2>/dev/null"));
	snprintf(cmd, sizeof(cmd),
		 "new-session -d -s top -x 80 -y 24 '%s top -i 0.3 --follow -- %s --truth %s --park'",
		 heaptap_path(), target_path("groundtruth", bin, sizeof(bin)),
		 scratch_file("truth.json", truth, sizeof(truth)));
	free(tmux(cmd));
	cr_assert(wait_for_text(truth, "library", 30), "the target never wrote its truth");
	t = load_json(truth);
	target = json_object_get_int(get(t, "pid"));

	screen = screen_with("groundtruth", 20);
	cr_assert(screen != NULL, "no row for the target");
	cr_expect(strstr(screen, "RANK") && strstr(screen, "CURRENT"), "%s", screen);
	free(screen);

	/* Open it: the threads tab lists worker-0 with its current bytes. */
	free(tmux("send-keys -t top Enter"));
	worker = find_by_str(get(t, "threads"), "name", "worker-0");
	cr_assert(worker != NULL);
	human(json_object_get_int64(get(worker, "current")), want, sizeof(want));
	screen = screen_with("worker-0", 20);
	cr_assert(screen != NULL, "the drill-down never showed worker-0");
	cr_expect(strstr(screen, "threads") != NULL, "%s", screen);
	cr_expect(strstr(strstr(screen, "worker-0"), want) != NULL,
		  "worker-0 should show %s: %s", want, screen);
	free(screen);

	/* Another tab, then sort by max, then quit. */
	free(tmux("send-keys -t top Tab"));
	screen = screen_with("libgt.so", 20);
	cr_expect(screen != NULL, "the libraries tab lists libgt.so");
	free(screen);
	/* The tree tab: roots collapsed; Enter opens the selected one, the first. */
	free(tmux("send-keys -t top Tab Tab"));
	screen = screen_with("+ main (groundtruth)", 20);
	cr_expect(screen != NULL, "the tree tab shows main, collapsed");
	free(screen);
	free(tmux("send-keys -t top Enter"));
	screen = screen_with("  - ", 20);
	cr_expect(screen != NULL, "Enter expands the selected node");
	cr_expect(screen && strstr(screen, "    + ") != NULL, "its children show: %s", screen);
	free(screen);
	free(tmux("send-keys -t top m"));
	screen = screen_with("sort: max", 20);
	cr_expect(screen != NULL, "sort key m");
	free(screen);
	free(tmux("send-keys -t top q"));
	for (int i = 0; i < 50; i++) {
		char *sessions = tmux("list-sessions 2>/dev/null");
		bool gone = !strstr(sessions, "top:");

		free(sessions);
		if (gone)
			break;
		usleep(100 * 1000);
	}
	screen = tmux("list-sessions 2>/dev/null");
	cr_expect(strstr(screen, "top:") == NULL, "q should quit heaptap top");
	free(screen);
	free(tmux("kill-server 2>/dev/null"));
	kill(target, SIGKILL);
	json_object_put(t);
}

/* What the view printed for bytes ("19.8K", "512B"), back in bytes. */
static double bytes_of(const char *text)
{
	char *unit;
	double value = strtod(text, &unit);
	const char *units = "BKMGTP", *at = *unit ? strchr(units, *unit) : NULL;

	for (long i = 0; at && i < at - units; i++)
		value *= 1024;
	return value;
}

/* The screen's line that shows text (a pointer to its start), or NULL. */
static const char *line_with(const char *screen, const char *text)
{
	const char *at = strstr(screen, text);

	while (at && at > screen && at[-1] != '\n')
		at--;
	return at;
}

/*
 * The held-by tab of an opened process: its allocation sites by bytes held now, as the
 * program counts them; a site whose blocks were all freed is not there; a site leaking at a
 * steady rate shows that rate and is marked.
 */
Test(top, the_held_by_tab_in_tmux)
{
	char bin[4096], dir[256], truth[512], stop[512], cmd[8192], want[64], growth[16], *screen;
	const char *row;
	json_object *t, *leak;
	double rate;

	require_bpf();
	if (system("command -v tmux >/dev/null") != 0)
		cr_skip_test("needs tmux");
	free(tmux("kill-server 2>/dev/null"));
	snprintf(dir, sizeof(dir), "%s", scratch_dir());
	snprintf(truth, sizeof(truth), "%s/owner-1.json", dir);
	snprintf(stop, sizeof(stop), "%s/stop", dir);
	snprintf(cmd, sizeof(cmd),
		 "new-session -d -s top -x 100 -y 24 'OMPI_COMM_WORLD_RANK=1 %s top -i 0.3 --follow -- "
		 "%s --truth-dir %s --hold %s --drip'", heaptap_path(),
		 target_path("rank_sites", bin, sizeof(bin)), dir, stop);
	free(tmux(cmd));
	cr_assert(wait_for_text(truth, "burst_site", 30), "the target never wrote its truth");
	t = load_json(truth);
	leak = get(t, "leak_site");
	screen = screen_with("rank_sites", 20);
	cr_assert(screen != NULL, "no row for the target");
	free(screen);

	/* Open it, then the fifth tab. */
	free(tmux("send-keys -t top Enter"));
	screen = screen_with("threads", 20);
	cr_assert(screen != NULL, "the process never opened");
	free(screen);
	free(tmux("send-keys -t top Tab Tab Tab Tab"));
	screen = screen_with("leak_site < main", 20);
	cr_assert(screen != NULL, "the held-by tab never showed leak_site");
	cr_expect(strstr(screen, "ALLOCATED AT") != NULL, "%s", screen);
	cr_expect(strstr(screen, "burst_site") == NULL, "burst_site freed its blocks: %s", screen);
	row = line_with(screen, "leak_site < main");
	human(json_object_get_int64(get(leak, "bytes")), want, sizeof(want));
	cr_expect(strncmp(row + 8 - strlen(want), want, strlen(want)) == 0,
		  "leak_site holds %s: %s", want, screen);
	snprintf(want, sizeof(want), " %8lld ", (long long)json_object_get_int64(get(leak, "blocks")));
	cr_expect(strncmp(row + 8, want, strlen(want)) == 0, "leak_site's blocks %s: %s", want,
		  screen);
	free(screen);

	/* drip_site: marked once its samples show steady growth, at the program's rate. */
	screen = screen_with("leak?", 20);
	cr_assert(screen != NULL, "drip_site was never marked a likely leak");
	row = line_with(screen, "drip_site");
	cr_assert(row != NULL && line_with(screen, "leak?") == row, "%s", screen);
	cr_assert(sscanf(row + 18, "%15s", growth) == 1, "%s", screen);
	rate = json_object_get_double(get(get(t, "drip_site"), "bytes_per_second"));
	cr_expect(bytes_of(growth) > 0.75 * rate && bytes_of(growth) < 1.25 * rate,
		  "drip_site grows %.0f B/s, the view says %s: %s", rate, growth, screen);
	free(screen);
	free(tmux("send-keys -t top q"));
	fclose(fopen(stop, "w"));
	sleep_ms(500);
	free(tmux("kill-server 2>/dev/null"));
	json_object_put(t);
}
