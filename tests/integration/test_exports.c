// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The exports read back by their users' tools: go tool pprof on --pprof lists each site of
 * export_sites with the bytes and calls the program counted itself, from a run, an attach
 * and the run's stored report, and each thread's share of a site under its thread label;
 * --folded's totals are the JSON report's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(exports, .timeout = 180);

/* What export_sites counted: blocks (calls) and usable bytes of each site. */
struct site {
	const char *name;
	long blocks;
	long bytes;
	bool held; /* its blocks are still allocated at the end */
};

/* The program's line "truth leak_site B N churn_site C N hold_site B N". */
static void read_truth(const char *out_path, struct site sites[3])
{
	char *out = slurp(out_path), *line = out ? strstr(out, "truth ") : NULL;
	char names[3][32];

	cr_assert(line != NULL, "export_sites printed no truth:\n%s", out ? out : "(nothing)");
	cr_assert(eq(int, sscanf(line, "truth %31s %ld %ld %31s %ld %ld %31s %ld %ld", names[0],
				 &sites[0].blocks, &sites[0].bytes, names[1], &sites[1].blocks,
				 &sites[1].bytes, names[2], &sites[2].blocks, &sites[2].bytes),
		     9));
	for (int i = 0; i < 3; i++)
		cr_assert(eq(str, names[i], (char *)sites[i].name));
	free(out);
}

/*
 * go tool pprof -top's standard output for PROFILE's samples of one kind, of those whose
 * labels match tagfocus ("key=value") if not NULL; the test fails in one line without go.
 */
static char *pprof_top_of(const char *profile, const char *sample_index, const char *tagfocus)
{
	char out[256], err[256], index[64], focus[128];
	char *argv[] = { "go", "tool", "pprof", "-top", "-nodefraction=0", "-unit=byte", index,
			 tagfocus ? focus : (char *)profile, (char *)profile, NULL };
	char *version_argv[] = { "go", "version", NULL };
	int status;

	if (wait_status(spawn(version_argv, NULL, NULL), 30) != 0)
		cr_fatal("go cannot run: install Debian's golang-go (make deps-test) for go tool pprof");
	snprintf(index, sizeof(index), "-sample_index=%s", sample_index);
	snprintf(focus, sizeof(focus), "-tagfocus=%s", tagfocus ? tagfocus : "");
	if (!tagfocus)
		argv[8] = NULL;
	status = wait_status(spawn(argv, scratch_file("pprof.out", out, sizeof(out)),
				   scratch_file("pprof.err", err, sizeof(err))),
			     60);
	cr_assert(eq(int, status, 0), "go tool pprof failed on %s:\n%s", profile, slurp(err));
	return slurp(out);
}

static char *pprof_top(const char *profile, const char *sample_index)
{
	return pprof_top_of(profile, sample_index, NULL);
}

/*
 * The cum column of function's row in pprof's -top table ("flat flat% sum% cum cum% name"),
 * a count or bytes ("19976B"); -1 when the function is not listed.
 */
static long cum_of(const char *top, const char *function)
{
	for (const char *line = top, *end; line && *line; line = end ? end + 1 : NULL) {
		char flat[32], flat_pct[32], sum_pct[32], cum[32], cum_pct[32], name[256];

		end = strchr(line, '\n');
		if (sscanf(line, "%31s %31s %31s %31s %31s %255s", flat, flat_pct, sum_pct, cum,
			   cum_pct, name) == 6 &&
		    !strcmp(name, function))
			return strtol(cum, NULL, 10);
	}
	return -1;
}

/* Each site's inuse_space (bytes still held) and alloc_objects (calls) as pprof lists them. */
static void assert_pprof_sites(const char *profile, const struct site sites[3])
{
	char *inuse = pprof_top(profile, "inuse_space");
	char *calls = pprof_top(profile, "alloc_objects");
	char *allocated = pprof_top(profile, "alloc_space");

	for (int i = 0; i < 3; i++) {
		cr_expect(eq(long, cum_of(inuse, sites[i].name), sites[i].held ? sites[i].bytes : -1),
			  "%s: inuse_space in:\n%s", sites[i].name, inuse);
		cr_expect(eq(long, cum_of(calls, sites[i].name), sites[i].blocks),
			  "%s: alloc_objects in:\n%s", sites[i].name, calls);
		cr_expect(eq(long, cum_of(allocated, sites[i].name), sites[i].bytes),
			  "%s: alloc_space in:\n%s", sites[i].name, allocated);
	}
	free(inuse);
	free(calls);
	free(allocated);
}

/* The sum of the weights of a folded file, and the weight of the line ending in tail. */
static long folded_total(const char *path, const char *tail, long *tail_weight)
{
	char *text = slurp(path), *save = NULL;
	long total = 0;

	cr_assert(text != NULL, "no %s", path);
	*tail_weight = -1;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *space = strrchr(line, ' ');

		cr_assert(space != NULL, "not a folded line: %s", line);
		*space = '\0';
		total += strtol(space + 1, NULL, 10);
		if (strlen(line) >= strlen(tail) && !strcmp(line + strlen(line) - strlen(tail), tail))
			*tail_weight = strtol(space + 1, NULL, 10);
	}
	free(text);
	return total;
}

/* The sum of key over the entries of one of the report's lists. */
static long json_total(json_object *list, const char *key)
{
	long total = 0;

	cr_assert(list != NULL && json_object_is_type(list, json_type_array));
	for (size_t i = 0; i < json_object_array_length(list); i++)
		total += json_object_get_int64(get(json_object_array_get_idx(list, i), key));
	return total;
}

/* export_sites run with --json, --pprof and --folded; its truth into sites. */
static void run_export_sites(struct site sites[3], char *json, char *pprof, char *folded)
{
	char target[4096], out[256], err[256];
	char *run_argv[] = { (char *)heaptap_path(), "run", "--json", json, "--pprof", pprof,
			     "--folded", folded, "--", target, NULL };

	require_bpf();
	target_path("export_sites", target, sizeof(target));
	scratch_file("run.json", json, 256);
	scratch_file("run.pb.gz", pprof, 256);
	scratch_file("run.folded", folded, 256);
	cr_assert(eq(int, wait_status(spawn(run_argv, scratch_file("run.out", out, sizeof(out)),
					    scratch_file("run.err", err, sizeof(err))),
				      120),
		     0),
		  "heaptap run failed:\n%s", slurp(err));
	read_truth(out, sites);
}

Test(exports, pprof_of_a_run_lists_each_site_exactly)
{
	struct site sites[3] = { { "leak_site", .held = true }, { "churn_site" },
				 { "hold_site", .held = true } };
	char json[256], pprof[256], folded[256];
	long leak_line;

	run_export_sites(sites, json, pprof, folded);
	assert_pprof_sites(pprof, sites);
	folded_total(folded, ";main;leak_site;malloc", &leak_line);
	cr_expect(eq(long, leak_line, sites[0].bytes), "the leak's line in %s", folded);
}

Test(exports, folded_and_the_stored_reports_exports_equal_the_json)
{
	struct site sites[3] = { { "leak_site", .held = true }, { "churn_site" },
				 { "hold_site", .held = true } };
	char json[256], pprof[256], folded[256], err[256];
	char stored_pprof[256], stored_folded[256];
	char *report_argv[] = { (char *)heaptap_path(), "report", json, "--pprof", stored_pprof,
				"--folded", stored_folded, "--folded-weight", "allocated", NULL };
	json_object *report, *process;
	long churn_line;

	run_export_sites(sites, json, pprof, folded);
	scratch_file("stored.pb.gz", stored_pprof, sizeof(stored_pprof));
	scratch_file("stored.folded", stored_folded, sizeof(stored_folded));
	/* Outstanding bytes: the run's folded lines sum to the report's outstanding list. */
	report = load_json(json);
	process = json_object_array_get_idx(get(report, "processes"), 0);
	cr_expect(eq(long, folded_total(folded, ";main;leak_site;malloc", &churn_line),
		     json_total(get(process, "outstanding"), "bytes")));

	/* The same sites from the stored report: pprof, and allocated bytes folded. */
	cr_assert(eq(int, wait_status(spawn(report_argv, NULL,
					    scratch_file("report.err", err, sizeof(err))),
				      60),
		     0),
		  "heaptap report failed:\n%s", slurp(err));
	assert_pprof_sites(stored_pprof, sites);
	cr_expect(eq(long, folded_total(stored_folded, ";main;churn_site;malloc", &churn_line),
		     json_total(get(process, "allocated"), "bytes")));
	cr_expect(eq(long, churn_line, sites[1].bytes), "churn_site's line in %s", stored_folded);
	json_object_put(report);
}

/* One thread's share of one site, as export_sites counted it ("thread TID NAME SITE N B"). */
struct thread_share {
	int tid;
	char name[16], site[32];
	long blocks, bytes;
};

/* The program's thread lines, in order; how many. */
static int read_thread_shares(const char *out_path, struct thread_share *shares, int max)
{
	char *out = slurp(out_path), *line = out;
	int n = 0;

	cr_assert(out != NULL);
	while (n < max && (line = strstr(line, "\nthread "))) {
		struct thread_share *t = &shares[n];

		line++;
		cr_assert(eq(int, sscanf(line, "thread %d %15s %31s %ld %ld", &t->tid, t->name,
					 t->site, &t->blocks, &t->bytes),
			     5),
			  "not a thread line: %.80s", line);
		n++;
	}
	free(out);
	return n;
}

/*
 * Each sample carries its thread's tid and name: focused on one thread, pprof lists that
 * thread's share of a site (calls, bytes allocated, held at the end and at the peak), as
 * the program counted it; hold_site's two threads apart.
 */
Test(exports, pprof_labels_each_thread_with_its_share)
{
	struct site sites[3] = { { "leak_site", .held = true }, { "churn_site" },
				 { "hold_site", .held = true } };
	static const char *const kinds[] = { "alloc_objects", "alloc_space", "inuse_space",
					     "peak_space" };
	char json[256], pprof[256], folded[256], focus[64], out[256];
	struct thread_share shares[4];
	int n, holders = 0;

	run_export_sites(sites, json, pprof, folded);
	n = read_thread_shares(scratch_file("run.out", out, sizeof(out)), shares, 4);
	cr_assert(eq(int, n, 3), "export_sites printed %d thread lines", n);
	for (int i = 0; i < n; i++) {
		const struct thread_share *t = &shares[i];

		holders += !strcmp(t->site, "hold_site");
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			long want = !strcmp(kinds[k], "alloc_objects") ? t->blocks : t->bytes;
			char *top;

			snprintf(focus, sizeof(focus), "thread=%d", t->tid);
			top = pprof_top_of(pprof, kinds[k], focus);
			cr_expect(eq(long, cum_of(top, t->site), want), "%s of %s on %s in:\n%s",
				  kinds[k], t->site, focus, top);
			free(top);
			if (!strcmp(t->name, "main"))
				continue; /* the main thread is named after the program */
			snprintf(focus, sizeof(focus), "thread_name=^%s$", t->name);
			top = pprof_top_of(pprof, kinds[k], focus);
			cr_expect(eq(long, cum_of(top, t->site), want), "%s of %s on %s in:\n%s",
				  kinds[k], t->site, focus, top);
			free(top);
		}
	}
	cr_expect(eq(int, holders, 2), "two threads at hold_site");
}

/* Attached before the sites run: the same figures. */
Test(exports, pprof_of_an_attach_lists_each_site_exactly)
{
	struct site sites[3] = { { "leak_site", .held = true }, { "churn_site" },
				 { "hold_site", .held = true } };
	char target[4096], gate[256], pprof[256], out[256], err[256], pid_arg[32];
	char *target_argv[] = { target, gate, NULL };
	char *attach_argv[] = { (char *)heaptap_path(), "attach", "-p", pid_arg, "--pprof",
				pprof, NULL };
	pid_t pid, tracer;
	FILE *go;

	require_bpf();
	target_path("export_sites", target, sizeof(target));
	scratch_file("gate", gate, sizeof(gate));
	scratch_file("attach.pb.gz", pprof, sizeof(pprof));
	pid = spawn(target_argv, scratch_file("target.out", out, sizeof(out)), NULL);
	snprintf(pid_arg, sizeof(pid_arg), "%d", pid);
	tracer = spawn(attach_argv, NULL, scratch_file("attach.err", err, sizeof(err)));
	expect_attached(tracer, pid, err);
	go = fopen(gate, "w");
	cr_assert(go != NULL);
	fclose(go);
	cr_assert(eq(int, wait_status(pid, 60), 0));
	cr_assert(eq(int, wait_status(tracer, 60), 0), "heaptap attach failed:\n%s", slurp(err));
	read_truth(out, sites);
	assert_pprof_sites(pprof, sites);
}

/* top -b writes the same when it quits: the folded leak's line has the program's bytes. */
Test(exports, top_writes_folded_when_it_quits)
{
	struct site sites[3] = { { "leak_site", .held = true }, { "churn_site" },
				 { "hold_site", .held = true } };
	char target[4096], folded[256], err[256], log_path[256];
	char *top_argv[] = { (char *)heaptap_path(), "top", "-b", "--folded", folded,
			     "--folded-weight", "calls", "--follow", "--", target, NULL };
	char *said, *log;
	long churn_line;

	require_bpf();
	target_path("export_sites", target, sizeof(target));
	scratch_file("top.folded", folded, sizeof(folded));
	cr_assert(eq(int, wait_status(spawn(top_argv, NULL,
					    scratch_file("top.err", err, sizeof(err))), 120), 0),
		  "heaptap top failed:\n%s", slurp(err));
	said = slurp(err);
	log = said ? strstr(said, "the command's output is in ") : NULL;
	cr_assert(log != NULL, "top did not say where the command's output went:\n%s", said);
	cr_assert(eq(int, sscanf(log, "the command's output is in %255s", log_path), 1));
	read_truth(log_path, sites);
	folded_total(folded, ";main;churn_site;malloc", &churn_line);
	cr_expect(eq(long, churn_line, sites[1].blocks), "churn_site's calls in %s", folded);
	unlink(log_path);
	free(said);
}

/* Options that cannot work are refused at once, in one line, before anything runs. */
Test(exports, bad_options_fail_in_one_line)
{
	char err[256], json[256], *text;
	char *weight_argv[] = { (char *)heaptap_path(), "report", json, "--folded", "/dev/null",
				"--folded-weight", "bytes", NULL };
	char *lonely_argv[] = { (char *)heaptap_path(), "report", json, "--folded-weight", "peak",
				NULL };

	scratch_file("none.json", json, sizeof(json));
	cr_assert(eq(int, wait_status(spawn(weight_argv, NULL,
					    scratch_file("w.err", err, sizeof(err))), 30), 2));
	text = slurp(err);
	cr_expect(eq(int, lines_with(text, "--folded-weight must be", NULL), 1), "%s", text);
	free(text);
	cr_assert(eq(int, wait_status(spawn(lonely_argv, NULL,
					    scratch_file("l.err", err, sizeof(err))), 30), 2));
	text = slurp(err);
	cr_expect(eq(int, lines_with(text, "add it", NULL), 1), "%s", text);
	free(text);
}
