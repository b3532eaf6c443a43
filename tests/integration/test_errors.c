// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Bad input gets one line that says what to do, and the documented exit status. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(errors, .timeout = 60);

static int lines_in(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* Run heaptap with args; its exit status, its stdout in *out (if out) and its stderr in *err. */
static int heaptap_io(char **args, char **out, char **err)
{
	char *argv[16] = { (char *)heaptap_path() }, err_path[256], out_path[256];
	int status, first = 1;

	/* "--" first: args is a whole command line of its own (heaptap run by another). */
	if (args[0] && !strcmp(args[0], "--")) {
		args++;
		first = 0;
	}
	for (int i = 0; args[i] && i < 14; i++)
		argv[i + first] = args[i];
	status = wait_status(spawn(argv, scratch_file("out.txt", out_path, sizeof(out_path)),
				   scratch_file("err.txt", err_path, sizeof(err_path))),
			     30);
	*err = slurp(err_path);
	if (out)
		*out = slurp(out_path);
	return status;
}

static int heaptap(char **args, char **err)
{
	return heaptap_io(args, NULL, err);
}

static void expect_one_line_error(char **args, int want_status, const char *mentions)
{
	char *err;
	int status = heaptap(args, &err);

	cr_expect(eq(int, status, want_status), "exit status; stderr: %s", err);
	cr_expect(eq(int, lines_in(err), 1), "one line on stderr, got: %s", err);
	cr_expect(strstr(err, mentions) != NULL, "'%s' not in: %s", mentions, err);
	cr_expect(strncmp(err, "heaptap: ", 9) == 0, "%s", err);
	free(err);
}

Test(errors, attach_to_a_missing_pid)
{
	require_bpf();
	expect_one_line_error((char *[]){ "attach", "-p", "999999999", NULL }, 2, "not a PID");
	expect_one_line_error((char *[]){ "attach", "-p", "4000000", NULL }, 3, "no process");
}

Test(errors, attach_to_a_kernel_thread)
{
	require_bpf();
	expect_one_line_error((char *[]){ "attach", "-p", "2", NULL }, 3, "kernel thread");
}

Test(errors, run_a_missing_or_unrunnable_command)
{
	char junk[256];
	FILE *f = fopen(scratch_file("not-a-program", junk, sizeof(junk)), "w");

	require_bpf();
	expect_one_line_error((char *[]){ "run", "--", "/nonexistent/cmd", NULL }, 127,
			      "/nonexistent/cmd");
	/* Executable bits on text that is neither ELF nor a script. */
	cr_assert(f != NULL);
	fputs("hello\n", f);
	fclose(f);
	chmod(junk, 0755);
	expect_one_line_error((char *[]){ "run", "--", junk, NULL }, 126, "Exec format error");
	/* A directory, named or found in PATH: not "Exec format error". */
	expect_one_line_error((char *[]){ "run", "--", (char *)scratch_dir(), NULL }, 126,
			      "Is a directory");
	{
		char dir[256], script[1024];

		scratch_subdir("bin", dir, sizeof(dir));
		scratch_subdir("bin/subdir", dir, sizeof(dir));
		snprintf(script, sizeof(script), "PATH='%s/bin' exec \"$0\" run -- subdir",
			 scratch_dir());
		expect_one_line_error((char *[]){ "--", "sh", "-c", script,
						  (char *)heaptap_path(), NULL },
				      126, "cannot execute 'subdir': Is a directory");
	}
}

Test(errors, without_privileges)
{
	require_bpf(); /* as root, drop to nobody for the one command */
	/* Its own command: what it lacks is privilege (PID 1 is refused sooner, as not its). */
	expect_one_line_error((char *[]){ "--", "setpriv", "--reuid=65534", "--regid=65534",
					  "--clear-groups", (char *)heaptap_path(), "run", "--",
					  "/bin/true", NULL },
			      4, "needs root");
}

Test(errors, usage)
{
	expect_one_line_error((char *[]){ "frobnicate", NULL }, 2, "subcommand");
	expect_one_line_error((char *[]){ "atach", "-p", "1", NULL }, 2,
			      "did you mean 'attach'?");
	expect_one_line_error((char *[]){ "attach", NULL }, 2, "-p");
	expect_one_line_error((char *[]){ "run", "-a", "outer", "--", "true", NULL }, 2,
			      "attribution");
	/* An option of another subcommand is refused, not ignored. */
	expect_one_line_error((char *[]){ "run", "-d", "1", "--", "true", NULL }, 2,
			      "run has no option -d");
	expect_one_line_error((char *[]){ "attach", "-p", "1", "--follow", NULL }, 2, "--follow");
	expect_one_line_error((char *[]){ "attach", "-p", NULL }, 2, "needs an argument");
	expect_one_line_error((char *[]){ "-p", "1", "attach", NULL }, 2, "after the subcommand");
}

Test(errors, bad_pid_lists)
{
	expect_one_line_error((char *[]){ "attach", "-p", "1,,2", NULL }, 2, "empty item");
	expect_one_line_error((char *[]){ "attach", "-p", "1,", NULL }, 2, "empty item");
	expect_one_line_error((char *[]){ "attach", "-p", "0", NULL }, 2, "not a PID");
	expect_one_line_error((char *[]){ "attach", "-p", "-5", NULL }, 2, "not a PID");
	expect_one_line_error((char *[]){ "top", "-p", "12ab", NULL }, 2, "not a PID");
	expect_one_line_error((char *[]){ "attach", "-p", "18446744073709551617", NULL }, 2,
			      "not a PID");
	/* $$ is heaptap's own PID once the shell execs it. */
	expect_one_line_error((char *[]){ "--", "sh", "-c", "exec \"$0\" attach -p 1,$$",
					  (char *)heaptap_path(), NULL },
			      2, "heaptap itself");
}

static bool lacks(const char *text, const char *word)
{
	return strstr(text, word) == NULL;
}

/* heaptap's --help (stdout), exit status 0. */
static char *help_of(char **args)
{
	char *out, *err;

	cr_assert(eq(int, heaptap_io(args, &out, &err), 0), "%s", err);
	free(err);
	return out;
}

Test(errors, help_per_subcommand)
{
	char *global = help_of((char *[]){ "--help", NULL });
	char *run = help_of((char *[]){ "run", "--help", NULL });
	char *attach = help_of((char *[]){ "-v", "attach", "--help", NULL });
	char *top = help_of((char *[]){ "top", "--help", NULL });

	for (const char *sub = "run\0attach\0top\0"; *sub; sub += strlen(sub) + 1)
		cr_expect(strstr(global, sub) != NULL, "%s not in heaptap --help", sub);
	cr_expect(strstr(global, "Exit status") && strstr(global, "--verbose"), "%s", global);
	cr_expect(lacks(global, "--follow") && lacks(global, "--pid"), "%s", global);

	cr_expect(strstr(run, "Usage: heaptap run") && strstr(run, "--follow"), "%s", run);
	cr_expect(lacks(run, "--duration") && lacks(run, "-d,") && lacks(run, "--pid"),
		  "run --help lists options that are not run's: %s", run);
	cr_expect(strstr(attach, "-d, --duration") && strstr(attach, "-p, --pid"), "%s", attach);
	cr_expect(lacks(attach, "--follow") && lacks(attach, "--batch"), "%s", attach);
	cr_expect(strstr(top, "-b, --batch") && strstr(top, "-i, --interval"), "%s", top);
	cr_expect(lacks(top, "--stacks") && lacks(top, "--duration"), "%s", top);
	free(global);
	free(run);
	free(attach);
	free(top);
}

Test(errors, global_options_before_or_after_the_subcommand)
{
	char *err;

	require_bpf();
	cr_expect(eq(int, heaptap((char *[]){ "-v", "run", "--", "true", NULL }, &err), 0), "%s",
		  err);
	cr_expect(strstr(err, "\nCalls: ") != NULL, "%s", err);
	/* -v took effect: libbpf's own messages are shown only with it. */
	cr_expect(strstr(err, "libbpf: ") != NULL, "-v before run was ignored: %s", err);
	free(err);
	cr_expect(eq(int, heaptap((char *[]){ "run", "--", "true", NULL }, &err), 0), "%s", err);
	cr_expect(strstr(err, "libbpf: ") == NULL, "libbpf's messages without -v: %s", err);
	free(err);
}

static bool missing(const char *path)
{
	struct stat st;

	return stat(path, &st) && errno == ENOENT;
}

Test(errors, bad_report_path_fails_before_the_command_runs)
{
	const char *options[] = { "--json", "-o", "--stacks" };
	char marker[256], touch[512], bad[256];

	require_bpf();
	scratch_file("ran", marker, sizeof(marker));
	snprintf(touch, sizeof(touch), "touch %s", marker);
	scratch_file("no-such-dir/report", bad, sizeof(bad));
	for (size_t i = 0; i < 3; i++) {
		expect_one_line_error((char *[]){ "run", (char *)options[i], bad, "--", "sh", "-c",
						  touch, NULL },
				      2, bad);
		cr_expect(missing(marker), "the command ran despite %s %s", options[i], bad);
	}
	/* A directory is no report file either. */
	expect_one_line_error((char *[]){ "run", "--json", (char *)scratch_dir(), "--", "sh", "-c",
					  touch, NULL },
			      2, scratch_dir());
	cr_expect(missing(marker), "the command ran despite --json DIRECTORY");
	expect_one_line_error((char *[]){ "attach", "-p", "1", "-o", bad, NULL }, 2, bad);
}

/* run --json -- true: "--" is no report file (it was one, and heaptap exited 0). */
Test(errors, a_report_file_that_looks_like_an_option)
{
	char script[512], dashes[256];

	snprintf(script, sizeof(script), "cd '%s' && exec \"$0\" run --json -- true",
		 scratch_dir());
	expect_one_line_error((char *[]){ "--", "sh", "-c", script, (char *)heaptap_path(),
					  NULL },
			      2, "--json takes a FILE, not '--'");
	cr_expect(missing(scratch_file("--", dashes, sizeof(dashes))), "%s written", dashes);
	expect_one_line_error((char *[]){ "report", "x.json", "--html", "-n", NULL }, 2,
			      "--html takes a FILE, not '-n'");
}

Test(errors, two_reports_in_one_file)
{
	char path[256];

	require_bpf();
	scratch_file("both", path, sizeof(path));
	expect_one_line_error((char *[]){ "run", "-o", path, "--json", path, "--", "true", NULL },
			      2, "same file");
}

Test(errors, a_run_without_report_leaves_files_as_they_were)
{
	char kept[256], fresh[256], *text;
	FILE *f;

	require_bpf();
	scratch_file("kept.json", kept, sizeof(kept));
	scratch_file("fresh.json", fresh, sizeof(fresh));
	f = fopen(kept, "w");
	cr_assert(f != NULL);
	fputs("{\"previous\": true}\n", f);
	fclose(f);
	expect_one_line_error((char *[]){ "run", "--json", kept, "--stacks", fresh, "--",
					  "/nonexistent/cmd", NULL },
			      127, "/nonexistent/cmd");
	text = slurp(kept);
	cr_expect(eq(str, text, "{\"previous\": true}\n"), "a previous report was emptied");
	free(text);
	cr_expect(missing(fresh), "an empty report file was left behind");
}

Test(errors, outside_the_initial_pid_namespace)
{
	require_bpf(); /* root, for unshare */
	expect_one_line_error((char *[]){ "--", "unshare", "--pid", "--fork", "--mount-proc",
					  (char *)heaptap_path(), "run", "--", "true", NULL },
			      1, "initial PID namespace");
	/* The host's /proc seen from inside: /proc/1/ns/pid would not tell. */
	expect_one_line_error((char *[]){ "--", "unshare", "--pid", "--fork",
					  (char *)heaptap_path(), "attach", "-p", "4000000", NULL },
			      1, "initial PID namespace");
}

Test(errors, run_passes_on_the_commands_exit_status)
{
	char *err;

	require_bpf();
	cr_expect(eq(int, heaptap((char *[]){ "run", "--", "sh", "-c", "exit 7", NULL }, &err), 7));
	free(err);
	cr_expect(eq(int, heaptap((char *[]){ "run", "--", "sh", "-c", "kill -TERM $$", NULL }, &err),
		     128 + 15));
	cr_expect(strstr(err, ", killed by signal 15 (") != NULL,
		  "a command killed by a signal still gets its report: %s", err);
	free(err);
}
