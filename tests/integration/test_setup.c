// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The README's set-up on a machine that lacks a package: `make demo` in a fresh copy of the
 * source tree, after the package that provides one dependency's .pc file was removed, works
 * the first time (it installs the package, then computes the flags pkg-config gives).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"
#include "shell.h"

/* A dependency heaptap links against, found through its .pc file, needed by nothing else. */
#define PACKAGE "libmicrohttpd-dev"
#define PC_MODULE "libmicrohttpd"
/* Others may be installing packages too (the package's own tests): wait for dpkg's lock. */
#define APT_WAIT "-o DPkg::Lock::Timeout=300"

/* The package back, whatever the test did (it runs after a failed assertion too). */
static void reinstall(void)
{
	char *out;

	if (sh(&out, 300, "dpkg-query -W -f='${db:Status-Abbrev}' " PACKAGE " | grep -q '^ii' || "
			  "DEBIAN_FRONTEND=noninteractive apt-get install " APT_WAIT " -y -q " PACKAGE) != 0)
		cr_log_error("could not reinstall " PACKAGE ": %s", out);
	free(out);
}

/* The last line of text, in place, for one-line failure messages. */
static const char *last_line(char *text)
{
	size_t n = strlen(text);
	char *nl;

	while (n && text[n - 1] == '\n')
		text[--n] = '\0';
	nl = strrchr(text, '\n');
	return nl ? nl + 1 : text;
}

Test(setup, demo_first_time_without_a_pc_file, .fini = reinstall, .timeout = 900)
{
	char tree[512], *out;

	if (geteuid() != 0)
		cr_skip_test("apt-get needs root");
	require_bpf();
	if (sh(NULL, 10, "command -v apt-get && git -C '%s' rev-parse", source_dir()) != 0)
		cr_skip_test("needs apt-get and the source tree's git repository");
	/*
	 * The archive must be reachable, or the package could not come back: apt-get update
	 * fails on any index it cannot fetch, and the package's file is fetched into apt's cache.
	 */
	if (sh(&out, 300, "apt-get update -q --error-on=any && "
			  "apt-get install " APT_WAIT " -y -q --reinstall --download-only " PACKAGE) != 0)
		cr_fatal("apt cannot reach the Debian archive: %s", last_line(out));
	free(out);

	/* The tree as checked out and edited, without its build output. */
	scratch_subdir("tree", tree, sizeof(tree));
	cr_assert(eq(int, sh(&out, 60, "cd '%s' && git ls-files -z -c -o --exclude-standard | "
				   "tar --null -T - --ignore-failed-read -cf - | tar -xf - -C '%s'",
			     source_dir(), tree),
		     0),
		  "copying the tree: %s", out);
	free(out);

	cr_assert(eq(int, sh(&out, 300, "apt-get remove " APT_WAIT " -y -q " PACKAGE), 0), "%s", out);
	free(out);
	cr_assert(ne(int, sh(NULL, 10, "pkg-config --exists " PC_MODULE), 0),
		  PC_MODULE ".pc still there after removing " PACKAGE);

	/* A plain make installs nothing: it names the package, and the way to get it. */
	cr_expect(ne(int, sh(&out, 120, "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "
				       "make -j2 heaptap",
			     tree),
		     0));
	cr_expect(strstr(out, "missing Debian packages: " PACKAGE "; run `make deps`") != NULL &&
			  strchr(out, '\n') == out + strlen(out) - 1,
		  "not one line naming " PACKAGE ":\n%s", out);
	free(out);

	/* Not the jobserver of a make this test may run under. */
	int status = sh(&out, 600, "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "
				   "make -j2 demo",
			tree);
	cr_expect(eq(int, status, 0), "make demo failed the first time:\n%s", out);
	cr_expect(strstr(out, "installing: " PACKAGE) != NULL, "make demo did not install " PACKAGE
		  ":\n%s", out);
	cr_expect(eq(int, sh(NULL, 10, "pkg-config --exists " PC_MODULE), 0),
		  PC_MODULE ".pc missing after make demo");
	free(out);
}
