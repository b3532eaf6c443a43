// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Bad input gets one line that says what to do, and the documented exit status. */
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

/* Run heaptap with args; its exit status, and its stderr in *err (malloc'ed). */
static int heaptap(char **args, char **err)
{
	char *argv[16] = { (char *)heaptap_path() }, err_path[256];
	int status, first = 1;

	/* "--" first: args is a whole command line of its own (heaptap run by another). */
	if (args[0] && !strcmp(args[0], "--")) {
		args++;
		first = 0;
	}
	for (int i = 0; args[i] && i < 14; i++)
		argv[i + first] = args[i];
	status = wait_status(spawn(argv, NULL, scratch_file("err.txt", err_path, sizeof(err_path))),
			     30);
	*err = slurp(err_path);
	return status;
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
	expect_one_line_error((char *[]){ "attach", NULL }, 2, "-p");
	expect_one_line_error((char *[]){ "run", "-a", "outer", "--", "true", NULL }, 2,
			      "attribution");
}

Test(errors, run_passes_on_the_commands_exit_status)
{
	char *err;

	require_bpf();
	cr_expect(eq(int, heaptap((char *[]){ "run", "--", "sh", "-c", "exit 7", NULL }, &err), 7));
	free(err);
	cr_expect(eq(int, heaptap((char *[]){ "run", "--", "sh", "-c", "kill -TERM $$", NULL }, &err),
		     128 + 15));
	cr_expect(strstr(err, "Statistics of overall memory usage") != NULL,
		  "a command killed by a signal still gets its report: %s", err);
	free(err);
}
