// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The Debian package make deb builds: lintian finds no error in it; installed, its heaptap
 * says its version and traces the demo; it gives a group's copy of the binary capabilities
 * only when the administrator asks; removed, it leaves nothing behind but its
 * configuration.
 */
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"
#include "shell.h"

TestSuite(package, .timeout = 240);

#define BINARY "/usr/sbin/heaptap"
#define CONFFILE "/etc/default/heaptap"
#define FOR_GROUP "/usr/bin/heaptap" /* the copy for the group heaptap_users */

/* The one package make deb left in the build output, and its version. */
static const char *package(char *version, size_t size)
{
	static char path[4096];
	char pattern[4200];
	glob_t g;
	const char *base;

	snprintf(pattern, sizeof(pattern), "%s/heaptap_*_amd64.deb", output_dir());
	cr_assert(glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1,
		  "want one %s: build it with make deb", pattern);
	snprintf(path, sizeof(path), "%s", g.gl_pathv[0]);
	globfree(&g);
	base = strrchr(path, '/') + strlen("/heaptap_");
	snprintf(version, size, "%.*s", (int)(strstr(base, "_amd64.deb") - base), base);
	return path;
}

/* dpkg with args, waiting out another dpkg or apt that holds its lock. */
static int dpkg(char **out, const char *args)
{
	return sh(out, 200,
		  "for i in $(seq 60); do "
		  "o=$(DEBIAN_FRONTEND=noninteractive dpkg %s 2>&1) && { echo \"$o\"; exit 0; }; "
		  "s=$?; echo \"$o\" | grep -q 'dpkg.* lock' || { echo \"$o\"; exit $s; }; "
		  "sleep 2; done; echo \"$o\"; exit 1",
		  args);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

Test(package, lintian_finds_no_error)
{
	char version[128], *out;
	const char *deb = package(version, sizeof(version));

	/* lintian refuses nothing for root, it only says it would rather not be. */
	cr_expect(eq(int, sh(&out, 120, "lintian --fail-on error,warning '%s'", deb), 0), "%s",
		  out);
	cr_expect(lines_with(out, "E: ", NULL) == 0 && lines_with(out, "W: ", NULL) == 0,
		  "lintian: %s", out);
	free(out);
	/* Its dependencies are dpkg-shlibdeps': a library heaptap links names its package. */
	cr_expect(eq(int, sh(&out, 10, "dpkg-deb -f '%s' Depends", deb), 0));
	cr_expect(strstr(out, "libbpf1 (>=") && strstr(out, "libc6 (>=") &&
			  strstr(out, "libsqlite3-0 (>="),
		  "Depends: %s", out);
	free(out);
}

/* The package's files, as dpkg -L lists them, that are files (not directories). */
static char *installed_files(void)
{
	char *out;

	cr_assert(eq(int, sh(&out, 10, "dpkg -L heaptap | while read -r f; do "
				       "[ -d \"$f\" ] || echo \"$f\"; done"),
		     0),
		  "%s", out);
	return out;
}

static void expect_no_capabilities(const char *when)
{
	char *out;
	struct stat st;

	cr_expect(eq(int, sh(&out, 10, "getcap " BINARY), 0), "%s", out);
	cr_expect(eq(str, out, ""), "%s: %s", when, out);
	free(out);
	cr_assert(stat(BINARY, &st) == 0);
	cr_expect(eq(u32, st.st_mode & 07777, 0755), "%s: mode %o", when, st.st_mode & 07777);
	cr_expect(eq(u32, st.st_gid, 0), "%s: group %u", when, st.st_gid);
}

/* Answer the package's question, as an administrator would, and apply the answer. */
static void reconfigure(bool capabilities)
{
	char *out;

	cr_assert(eq(int, sh(&out, 60,
			     "echo 'heaptap heaptap/capabilities boolean %s' | "
			     "debconf-set-selections && DEBIAN_FRONTEND=noninteractive "
			     "dpkg-reconfigure heaptap",
			     capabilities ? "true" : "false"),
		     0),
		  "%s", out);
	free(out);
}

/* The installed heaptap traces the demo: its tree's 60,000 callocs, its log's reallocs. */
static void expect_demo_traced(void)
{
	char demo[512], json[512], text[512], *out;
	json_object *report, *proc, *threads, *rbtree, *main_thread;
	int pid;

	target_path("demo", demo, sizeof(demo));
	scratch_file("installed-demo.json", json, sizeof(json));
	scratch_file("installed-demo.txt", text, sizeof(text));
	cr_assert(eq(int, sh(&out, 60, BINARY " run --json %s -o %s -- %s", json, text, demo), 0),
		  "%s", out);
	cr_expect(strstr(out, "demo: built a 50,000-node tree") != NULL, "%s", out);
	free(out);
	report = load_json(json);
	proc = json_object_array_get_idx(get(report, "processes"), 0);
	pid = json_object_get_int(get(proc, "pid"));
	threads = get(proc, "threads");
	rbtree = find_by_str(threads, "name", "rbtree");
	main_thread = find_by_int(threads, "tid", pid);
	cr_assert(rbtree && main_thread, "threads: %s", json_object_to_json_string(threads));
	/* demo.c: 50,000 inserts, then 10 rounds of 1,000 deletes and 1,000 inserts. */
	cr_expect(eq(i64, calls_of(rbtree, "calloc"), 50000 + 10 * 1000));
	/*
	 * Each node freed once: 10 rounds of 1,000, then the 50,000 left; and the C library's
	 * own frees when the thread ends (its tcache, 2 with glibc 2.36), which it calls
	 * through the same entry point.
	 */
	cr_expect(calls_of(rbtree, "free") >= 10 * 1000 + 50000 &&
			  calls_of(rbtree, "free") <= 10 * 1000 + 50000 + 4,
		  "rbtree's frees: %ld", calls_of(rbtree, "free"));
	/* Its log grows by one realloc per event, 2,000 events. */
	cr_expect(eq(i64, calls_of(main_thread, "realloc"), 2000));
	json_object_put(report);
}

Test(package, install_trace_remove)
{
	char version[128], args[4200], *out, *files;
	const char *deb = package(version, sizeof(version));

	require_bpf();
	/* A heaptap package left by an earlier run goes first, with its configuration. */
	cr_assert(eq(int, dpkg(&out, "--purge heaptap"), 0), "%s", out);
	free(out);
	snprintf(args, sizeof(args), "-i '%s'", deb);
	cr_assert(eq(int, dpkg(&out, args), 0), "%s", out);
	free(out);

	/* Its version is the package's; and what it found of the kernel. */
	cr_expect(eq(int, sh(&out, 10, BINARY " --version"), 0), "%s", out);
	snprintf(args, sizeof(args), "heaptap %s\nlibbpf ", version);
	cr_expect(strncmp(out, args, strlen(args)) == 0, "want '%s', got: %s", args, out);
	cr_expect(strstr(out, "BTF (/sys/kernel/btf/vmlinux)") != NULL, "%s", out);
	free(out);
	/* Installed without being asked: no capability, root's binary like any other. */
	expect_no_capabilities("installed");
	expect_demo_traced();
	/* man finds the pages where it looks; bash-completion finds the completion. */
	cr_expect(eq(int, sh(&out, 20, "man -w heaptap-attach heaptap-report heaptap"), 0), "%s",
		  out);
	free(out);
	cr_expect(exists("/usr/share/bash-completion/completions/heaptap"));
	cr_expect(exists("/usr/share/zsh/vendor-completions/_heaptap"));
	cr_expect(eq(int, sh(&out, 10, "grep -l 'ExecStart=" BINARY " ' "
				       "/lib/systemd/system/heaptap-agent.service "
				       "/lib/systemd/system/heaptap-collect.service | wc -l"),
		     0));
	cr_expect(eq(str, out, "2\n"), "the units run another heaptap: %s", out);
	free(out);
	/* The units as systemd reads them: the binary and the man page they name exist. */
	cr_expect(eq(int, sh(&out, 30, "systemd-analyze verify "
				       "/lib/systemd/system/heaptap-agent.service "
				       "/lib/systemd/system/heaptap-collect.service"),
		     0),
		  "%s", out);
	cr_expect(eq(str, out, ""), "systemd-analyze verify: %s", out);
	free(out);

	/*
	 * Asked, it gives the group heaptap_users a copy with the capabilities, the same
	 * heaptap; root's binary keeps none. Asked again, it takes the copy away.
	 */
	reconfigure(true);
	cr_expect(eq(int, sh(&out, 10, "getcap " FOR_GROUP "; stat -c '%%a %%U %%G' " FOR_GROUP
				       "; cmp " BINARY " " FOR_GROUP " && echo same"),
		     0));
	cr_expect(eq(str, out, FOR_GROUP " cap_perfmon,cap_bpf=ep\n750 root heaptap_users\nsame\n"),
		  "%s", out);
	free(out);
	expect_no_capabilities("with the group's copy");
	/*
	 * A user of the group (nobody, given it) traces a program of its own with the copy;
	 * with root's binary, that user has not the privileges (exit status 4).
	 */
	cr_expect(eq(int, sh(&out, 60, "cd / && setpriv --reuid 65534 --regid 65534 --groups "
				       "$(getent group heaptap_users | cut -d: -f3) " FOR_GROUP
				       " run -- /bin/ls / >/dev/null"),
		     0),
		  "%s", out);
	cr_expect(strstr(out, "\nCalls: ") != NULL, "%s", out);
	free(out);
	cr_expect(eq(int, sh(&out, 60, "cd / && setpriv --reuid 65534 --regid 65534 "
				       "--clear-groups " BINARY " run -- /bin/ls / >/dev/null"),
		     4),
		  "%s", out);
	free(out);
	reconfigure(false);
	cr_expect(exists(FOR_GROUP) == false, "%s left when answered no", FOR_GROUP);
	expect_no_capabilities("reconfigured to no");
	/* Yes again: removing the package takes the copy too (checked below). */
	reconfigure(true);
	cr_expect(exists(FOR_GROUP));

	files = installed_files();
	cr_expect(lines_with(files, "/usr/share/man/man8/heaptap-collect.8.gz", NULL) == 1 &&
			  lines_with(files, "/usr/share/man/man1/heaptap-compare.1.gz", NULL) == 1,
		  "%s", files);
	cr_assert(eq(int, dpkg(&out, "-r heaptap"), 0), "%s", out);
	free(out);
	/* Removed: every file of it gone but its configuration, which dpkg still knows. */
	for (char *f = files; *f; f = strchr(f, '\n') + 1) {
		char path[512];

		snprintf(path, sizeof(path), "%.*s", (int)strcspn(f, "\n"), f);
		if (!strcmp(path, CONFFILE))
			cr_expect(exists(path), "%s removed with the package", path);
		else
			cr_expect(exists(path) == false, "%s left behind", path);
	}
	cr_expect(eq(int, sh(&out, 10, "dpkg-query -W -f='${db:Status-Status}' heaptap"), 0));
	cr_expect(eq(str, out, "config-files"), "%s", out);
	free(out);
	cr_expect(exists(FOR_GROUP) == false, "%s left behind", FOR_GROUP);
	/* Purged: the configuration too. */
	cr_assert(eq(int, dpkg(&out, "--purge heaptap"), 0), "%s", out);
	free(out);
	cr_expect(exists(CONFFILE) == false, "%s left after purge", CONFFILE);
	free(files);
}

/* make install: the binary, every man page in its section, the completions, under PREFIX. */
Test(package, make_install)
{
	char dest[512], *out;

	scratch_file("destdir", dest, sizeof(dest));
	cr_assert(eq(int, sh(&out, 120, "make -s -C '%s' install DESTDIR='%s' PREFIX=/usr",
			     source_dir(), dest),
		  0),
		  "%s", out);
	free(out);
	cr_expect(eq(int, sh(&out, 10, "cd '%s' && find . -type f | LC_ALL=C sort", dest), 0));
	cr_expect(eq(str, out,
		     "./usr/sbin/heaptap\n"
		     "./usr/share/bash-completion/completions/heaptap\n"
		     "./usr/share/man/man1/heaptap-compare.1\n"
		     "./usr/share/man/man1/heaptap-report.1\n"
		     "./usr/share/man/man1/heaptap-sites.1\n"
		     "./usr/share/man/man1/heaptap-store-migrate.1\n"
		     "./usr/share/man/man8/heaptap-agent.8\n"
		     "./usr/share/man/man8/heaptap-attach.8\n"
		     "./usr/share/man/man8/heaptap-collect.8\n"
		     "./usr/share/man/man8/heaptap-run.8\n"
		     "./usr/share/man/man8/heaptap-top.8\n"
		     "./usr/share/man/man8/heaptap.8\n"
		     "./usr/share/zsh/site-functions/_heaptap\n"),
		  "installed: %s", out);
	free(out);
}
