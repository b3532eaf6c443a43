// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap sites as a user runs it: on a running process, on a file, and on bad input.
 * Where each site lies is the unit tests' business (test_probe_site.c); here, that every
 * entry point is listed with its site and rule, and that the process and its file agree.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(sites, .timeout = 60);

static const char *const entry_points[] = {
	"malloc", "calloc", "realloc", "reallocarray", "free", "memalign", "posix_memalign",
	"aligned_alloc", "valloc", "pvalloc",
};

/* Run heaptap sites ARG...: its exit status, its output in *out, its errors in *err. */
static int sites(char *arg1, char *arg2, char **out, char **err)
{
	char out_path[256], err_path[256];
	char *argv[] = { (char *)heaptap_path(), "sites", arg1, arg2, NULL };
	int status = wait_status(spawn(argv, scratch_file("sites.out", out_path, sizeof(out_path)),
				       scratch_file("sites.err", err_path, sizeof(err_path))),
				 30);

	*out = slurp(out_path);
	*err = slurp(err_path);
	cr_assert(out[0] != NULL && err[0] != NULL);
	return status;
}

static size_t occurrences(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void expect_every_entry_point(const char *out)
{
	for (size_t i = 0; i < sizeof(entry_points) / sizeof(entry_points[0]); i++) {
		char probe[64], alias[64];

		snprintf(probe, sizeof(probe), "\n%s at 0x", entry_points[i]);
		snprintf(alias, sizeof(alias), "\n%s: the same function as", entry_points[i]);
		cr_expect(strstr(out, probe) || strstr(out, alias), "%s missing from:\n%s",
			  entry_points[i], out);
	}
	cr_expect(occurrences(out, "  rule: ") >= 9, "a rule per probed function:\n%s", out);
}

Test(sites, a_process_and_its_c_library_agree)
{
	char target[4096], pid_arg[32], libc[4096] = "", *out, *err, *file_out, *file_err;
	char *target_argv[] = { (char *)target_path("groundtruth", target, sizeof(target)),
				"--wait", NULL };
	pid_t pid = spawn(target_argv, NULL, NULL);
	const char *in;

	snprintf(pid_arg, sizeof(pid_arg), "%d", pid);
	/* Until the loader has mapped libc, the process has no malloc to show. */
	for (int i = 0; i < 100; i++) {
		if (sites("-p", pid_arg, &out, &err) == 0)
			break;
		free(out);
		free(err);
		out = err = NULL;
		sleep_ms(20);
	}
	kill(pid, SIGKILL);
	wait_status(pid, 10);
	cr_assert(out != NULL, "heaptap sites -p never succeeded");
	expect_every_entry_point(out);
	in = strstr(out, "probe sites in ");
	cr_assert(in != NULL);
	sscanf(in, "probe sites in %4095s", libc);
	cr_assert(strstr(libc, "/libc.so") != NULL, "the allocator is the C library: %s", libc);
	cr_assert(eq(int, sites(libc, NULL, &file_out, &file_err), 0), "%s", file_err);
	cr_expect(eq(str, strstr(file_out, "\n"), strstr(out, "\n")),
		  "the file and the process that maps it get the same sites");
	free(out);
	free(err);
	free(file_out);
	free(file_err);
}

Test(sites, bad_input_gets_one_line)
{
	char *out, *err;

	cr_expect(eq(int, sites("/no/such/file", NULL, &out, &err), 2));
	cr_expect(eq(int, lines_with(err, "heaptap: cannot read /no/such/file", NULL), 1), "%s",
		  err);
	free(out);
	free(err);
	cr_expect(eq(int, sites("/etc/hostname", NULL, &out, &err), 3));
	cr_expect(strstr(err, "not an ELF file") != NULL, "%s", err);
	free(out);
	free(err);
	cr_expect(eq(int, sites("-p", "1,2", &out, &err), 2));
	free(out);
	free(err);
}
