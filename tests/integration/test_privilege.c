// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap installed as a site would for a group of users: a copy of the binary with
 * exactly the file capabilities tools/docs/security.md gives (cap_bpf,cap_perfmon=ep), run by an
 * unprivileged user. That user traces their own program exactly (run and attach), and is
 * refused a root process and another user's process: one line, exit 2, before any BPF is
 * loaded (so no probe), and the process is never stopped and finishes its work.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(privilege, .timeout = 120);

#define TEST_USER "heaptap-test"
#define FILE_CAPS "cap_bpf,cap_perfmon=ep"

struct install {
	char dir[64];	   /* 0755, root's: the binary and the target program */
	char work[96];	   /* the user's: reports and truth files */
	char heaptap[128]; /* the copy with FILE_CAPS */
	char target[128];  /* groundtruth, with libgt.so beside it */
	uid_t uid;
	gid_t gid;
};

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char *cmd;

	cr_assert(asprintf(&cmd, "cp '%s' '%s'", from, to) > 0);
	cr_assert(eq(int, system(cmd), 0), "cannot copy %s to %s", from, to);
	free(cmd);
	cr_assert(eq(int, chmod(to, mode), 0), "chmod %s: %s", to, strerror(errno));
}

/* The user, the directories, the binary with its capabilities: fail in one line if not. */
static void install(struct install *in)
{
	char src[4096], path[192];
	struct passwd *pw;
	cap_t caps;

	require_bpf();
	pw = getpwnam(TEST_USER);
	if (!pw) {
		cr_assert(eq(int, system("useradd --system --no-create-home --shell /usr/sbin/nologin "
					 TEST_USER), 0),
			  "cannot create the unprivileged user " TEST_USER " (useradd failed)");
		pw = getpwnam(TEST_USER);
		cr_assert(pw != NULL, "useradd made no user " TEST_USER);
	}
	in->uid = pw->pw_uid;
	in->gid = pw->pw_gid;
	snprintf(in->dir, sizeof(in->dir), "/tmp/heaptap-caps-XXXXXX");
	cr_assert(mkdtemp(in->dir) != NULL, "mkdtemp: %s", strerror(errno));
	cr_assert(eq(int, chmod(in->dir, 0755), 0));
	snprintf(in->work, sizeof(in->work), "%s/work", in->dir);
	cr_assert(eq(int, mkdir(in->work, 0755), 0));
	cr_assert(eq(int, chown(in->work, in->uid, in->gid), 0));

	snprintf(in->heaptap, sizeof(in->heaptap), "%s/heaptap", in->dir);
	copy_file(heaptap_path(), in->heaptap, 0755);
	caps = cap_from_text(FILE_CAPS);
	cr_assert(caps != NULL);
	cr_assert(eq(int, cap_set_file(in->heaptap, caps), 0),
		  "cannot give %s the file capabilities " FILE_CAPS ": %s", in->heaptap,
		  strerror(errno));
	cap_free(caps);

	snprintf(in->target, sizeof(in->target), "%s/groundtruth", in->dir);
	copy_file(target_path("groundtruth", src, sizeof(src)), in->target, 0755);
	snprintf(path, sizeof(path), "%s/libgt.so", in->dir);
	copy_file(target_path("libgt.so", src, sizeof(src)), path, 0755);
}

static const char *work_file(const struct install *in, const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", in->work, name);
	return buf;
}

/* spawn() as uid/gid, with no capability and no supplementary group, and envp. */
static pid_t spawn_env_as(uid_t uid, gid_t gid, char *const argv[], char *const envp[],
			  const char *out, const char *err)
{
	pid_t pid = fork();

	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(o, 1);
		dup2(e, 2);
		setpgid(0, 0);
		/* Leaving uid 0 clears every capability: the user has none of their own. */
		if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
			dprintf(2, "cannot become uid %d: %s\n", uid, strerror(errno));
			_exit(126);
		}
		execve(argv[0], argv, envp);
		_exit(127);
	}
	return pid;
}

static pid_t spawn_as(uid_t uid, gid_t gid, char *const argv[], const char *out,
		      const char *err)
{
	return spawn_env_as(uid, gid, argv, environ, out, err);
}

/* The report against the program's own record: threads, libgt functions, the library. */
static void check_exact(const char *report_path, const char *truth_path)
{
	static const char *const fields[] = { "current", "min", "max", "requested", NULL };
	json_object *report = load_json(report_path), *truth = load_json(truth_path);
	json_object *process;

	cr_assert(eq(sz, json_object_array_length(get(report, "processes")), 1));
	process = json_object_array_get_idx(get(report, "processes"), 0);
	cr_expect(eq(i64, json_object_get_int64(get(process, "lost_events")), 0));
	cr_assert(eq(sz, json_object_array_length(get(truth, "threads")), 4));
	assert_threads(get(process, "threads"), get(truth, "threads"), "unprivileged");
	assert_libgt_functions(get(process, "functions"), get(truth, "entry_functions"),
			       "unprivileged");
	assert_libgt_library(process, truth, fields, "library libgt.so");
	json_object_put(report);
	json_object_put(truth);
}

static int exit_status_explained(int status, const char *err_path)
{
	if (status == 4)
		cr_assert(false, "heaptap with " FILE_CAPS " could not load BPF (is the copy's "
				 "file system mounted nosuid?): %s", slurp(err_path));
	return status;
}

Test(privilege, a_user_runs_their_own_program_exactly)
{
	struct install in;
	char json[160], truth[160], err[160];

	install(&in);
	{
		char *argv[] = { in.heaptap, "run", "--json", (char *)work_file(&in, "r.json", json,
				 sizeof(json)), "-o", "/dev/null", "--", in.target, "--truth",
				 (char *)work_file(&in, "truth.json", truth, sizeof(truth)), NULL };
		int status = wait_status(spawn_as(in.uid, in.gid, argv, NULL,
						  work_file(&in, "err", err, sizeof(err))), 60);

		cr_assert(eq(int, exit_status_explained(status, err), 0), "heaptap: %s",
			  slurp(err));
	}
	check_exact(json, truth);
}

/*
 * heaptap runs with more privileges than its user, so glibc strips LD_LIBRARY_PATH and
 * LD_PRELOAD from its environment; the command, run with the user's privileges, must
 * still get them (HPC modules set LD_LIBRARY_PATH), and the rest unchanged.
 */
Test(privilege, the_command_gets_the_users_environment)
{
	struct install in;
	char out[160], err[160], *env;
	char *argv[] = { NULL, "run", "-o", "/dev/null", "--", "/usr/bin/env", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", "LD_LIBRARY_PATH=/opt/heaptap-test/lib",
			 "LD_PRELOAD=", "HEAPTAP_TEST_MARK=42", NULL };

	install(&in);
	argv[0] = in.heaptap;
	cr_assert(eq(int, exit_status_explained(wait_status(spawn_env_as(in.uid, in.gid, argv,
		  envp, work_file(&in, "out", out, sizeof(out)), work_file(&in, "err", err,
		  sizeof(err))), 60), err), 0), "heaptap: %s", slurp(err));
	env = slurp(out);
	cr_assert(env != NULL);
	cr_expect(strstr(env, "\nLD_LIBRARY_PATH=/opt/heaptap-test/lib\n") != NULL ||
		  strncmp(env, "LD_LIBRARY_PATH=/opt/heaptap-test/lib\n", 38) == 0,
		  "LD_LIBRARY_PATH lost: %s", env);
	cr_expect(strstr(env, "HEAPTAP_TEST_MARK=42\n") != NULL, "environment lost: %s", env);
	free(env);
}

/* Every thread's CapEff line in /proc/pid/task/ (heaptap after set-up must hold none). */
static void assert_no_capabilities(pid_t pid)
{
	char cmd[256], *out, path[160];

	snprintf(path, sizeof(path), "%s/caps", scratch_dir());
	snprintf(cmd, sizeof(cmd), "grep -h CapEff /proc/%d/task/*/status | sort -u > %s", pid,
		 path);
	cr_assert(eq(int, system(cmd), 0), "cannot read heaptap's threads' capabilities");
	out = slurp(path);
	cr_assert(out != NULL);
	cr_expect(eq(str, out, "CapEff:\t0000000000000000\n"),
		  "heaptap keeps capabilities once its BPF objects are loaded: %s", out);
	free(out);
}

Test(privilege, a_user_attaches_to_their_own_process_exactly)
{
	struct install in;
	char json[160], truth[160], err[160], pid_arg[16], attached[64];
	pid_t target, tracer;

	install(&in);
	{
		char *argv[] = { in.target, "--wait", "--truth",
				 (char *)work_file(&in, "truth.json", truth, sizeof(truth)), NULL };

		target = spawn_as(in.uid, in.gid, argv, NULL, NULL);
	}
	snprintf(pid_arg, sizeof(pid_arg), "%d", target);
	{
		char *argv[] = { in.heaptap, "attach", "-p", pid_arg, "--json",
				 (char *)work_file(&in, "r.json", json, sizeof(json)), "-o",
				 "/dev/null", NULL };

		tracer = spawn_as(in.uid, in.gid, argv, NULL, work_file(&in, "err", err,
									 sizeof(err)));
	}
	snprintf(attached, sizeof(attached), "heaptap: attached to PID %d", target);
	if (!wait_for_text(err, attached, 30)) {
		kill(target, SIGKILL);
		exit_status_explained(wait_status(tracer, 5), err);
		cr_assert(false, "heaptap never said it attached: %s", slurp(err));
	}
	assert_no_capabilities(tracer);
	kill(target, SIGUSR1);
	cr_assert(eq(int, wait_status(target, 60), 0));
	cr_assert(eq(int, wait_status(tracer, 30), 0), "heaptap: %s", slurp(err));
	check_exact(json, truth);
}

/* The state letter of /proc/pid/stat. */
static char state_of(pid_t pid)
{
	char path[64], *stat, *p, state = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	stat = slurp(path);
	if (stat && (p = strrchr(stat, ')')) && p[1] == ' ')
		state = p[2];
	free(stat);
	return state;
}

/*
 * The user's heaptap is pointed at a process running as owner_uid (root, another user):
 * refused in one line naming the PID and the reason, with exit 2, no BPF loaded (so no
 * probe can have been placed), and the process is not stopped and does all its work.
 */
static void refused(uid_t owner_uid, gid_t owner_gid, const char *reason)
{
	struct install in;
	char truth[160], err[160], pid_arg[16], want[128], *msg;
	pid_t target, tracer;

	install(&in);
	/* Its truth file goes where its owner can write it. */
	snprintf(truth, sizeof(truth), "%s/owner", in.dir);
	cr_assert(eq(int, mkdir(truth, 0755), 0));
	cr_assert(eq(int, chown(truth, owner_uid, owner_gid), 0));
	strcat(truth, "/truth.json");
	{
		char *argv[] = { in.target, "--wait", "--truth", truth, NULL };

		target = spawn_as(owner_uid, owner_gid, argv, NULL, NULL);
	}
	/* Until it waits for SIGUSR1: its /proc files are then its own program's. */
	for (int i = 0; i < 250 && state_of(target) != 'S'; i++)
		usleep(20 * 1000);
	snprintf(pid_arg, sizeof(pid_arg), "%d", target);
	{
		char *argv[] = { in.heaptap, "attach", "-v", "-p", pid_arg, "-o", "/dev/null", NULL };

		tracer = spawn_as(in.uid, in.gid, argv, NULL, work_file(&in, "err", err,
									 sizeof(err)));
	}
	cr_assert(eq(int, wait_status(tracer, 30), 2), "heaptap: %s", slurp(err));
	msg = slurp(err);
	cr_assert(msg != NULL);
	snprintf(want, sizeof(want), "heaptap: not allowed to trace PID %d: %s", target, reason);
	cr_expect(strncmp(msg, want, strlen(want)) == 0, "want \"%s...\", got \"%s\"", want, msg);
	cr_expect(strchr(msg, '\n') == msg + strlen(msg) - 1, "one line, got \"%s\"", msg);
	cr_expect(strstr(msg, "libbpf") == NULL, "refused only after loading BPF: %s", msg);
	free(msg);
	cr_expect(state_of(target) != 'T', "heaptap left PID %d stopped", target);

	kill(target, SIGUSR1);
	cr_assert(eq(int, wait_status(target, 60), 0), "the refused process did not finish");
	msg = slurp(truth);
	cr_assert(msg && strstr(msg, "\"threads\""), "the refused process wrote no truth");
	free(msg);
}

Test(privilege, a_root_process_is_refused)
{
	refused(0, 0, "it belongs to another user");
}

Test(privilege, another_users_process_is_refused)
{
	struct passwd *nobody = getpwnam("nobody");

	cr_assert(nobody != NULL, "no user nobody to own the other process");
	refused(nobody->pw_uid, nobody->pw_gid, "it belongs to another user");
}
