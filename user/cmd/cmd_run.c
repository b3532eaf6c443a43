// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Start a command under tracing, held until its probes are in place; and heaptap run. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "commands.h"
#include "log.h"
#include "privilege.h"

static volatile pid_t child;

/* The command owns the terminal's signals: pass them on, and report once it ends. */
static void forward_signal(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* The file execvp() would run, as execvp finds it. 0 or -errno. */
static int find_command(const char *name, char *path, size_t size)
{
	const char *dirs = getenv("PATH");
	int err = -ENOENT;

	if (strchr(name, '/')) {
		snprintf(path, size, "%s", name);
		return access(path, X_OK) ? -errno : 0;
	}
	if (!dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	while (*dirs) {
		size_t len = strcspn(dirs, ":");

		snprintf(path, size, "%.*s/%s", (int)len, len ? dirs : ".", name);
		if (access(path, X_OK) == 0)
			return 0;
		if (errno == EACCES)
			err = -EACCES;
		dirs += len + (dirs[len] == ':');
	}
	return err;
}

/*
 * The ELF file the kernel will load for path: path itself, or the interpreter named on a
 * script's "#!" line. 0, or -ENOEXEC when it is neither.
 */
static int program_image(const char *path, char *image, size_t size)
{
	char head[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	head[n] = '\0';
	if (n >= 4 && !memcmp(head, "\x7f" "ELF", 4)) {
		snprintf(image, size, "%s", path);
		return 0;
	}
	if (n >= 2 && !memcmp(head, "#!", 2)) {
		const char *interp = head + 2 + strspn(head + 2, " \t");

		snprintf(image, size, "%.*s", (int)strcspn(interp, " \t\n"), interp);
		return access(image, X_OK) ? -ENOEXEC : 0;
	}
	return -ENOEXEC;
}

/*
 * Fork the command, held before exec until `gate` is written to, so that heaptap can
 * prepare its probes. A failed exec is reported through `exec_error` (close-on-exec).
 */
static pid_t fork_command(const char *path, char **argv, int gate, int exec_error,
			  int output)
{
	char **envp = privilege_command_environ(); /* before fork: it allocates */
	pid_t pid = fork();
	char go;
	int err;

	if (pid != 0)
		return pid;
	if (read(gate, &go, 1) != 1)
		_exit(EXIT_NOT_FOUND);
	if (output >= 0 && (dup2(output, STDOUT_FILENO) < 0 || dup2(output, STDERR_FILENO) < 0))
		_exit(EXIT_NOT_EXECUTABLE);
	execve(path, argv, envp);
	err = errno;
	if (write(exec_error, &err, sizeof(err)) < 0)
		_exit(EXIT_NOT_FOUND);
	_exit(err == ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_EXECUTABLE);
}

int resolve_command(const char *name, char *path, char *image, size_t size)
{
	int err = find_command(name, path, size);

	if (!err)
		err = program_image(path, image, size);
	if (err) {
		log_error("cannot execute '%s': %s", name, strerror(-err));
		return err == -ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_EXECUTABLE;
	}
	return EXIT_OK;
}

int launch_command(struct session *s, const char *path, const char *image, char **argv,
		   int output, pid_t *out)
{
	int gate[2] = { -1, -1 }, exec_error[2] = { -1, -1 };
	int status = EXIT_OK, err, exec_errno = 0;
	pid_t pid;

	if (pipe2(gate, O_CLOEXEC) || pipe2(exec_error, O_CLOEXEC)) {
		log_error("cannot create a pipe: %m");
		status = EXIT_FAILURE_INTERNAL;
		goto cleanup;
	}
	pid = fork_command(path, argv, gate[0], exec_error[1], output);
	if (pid < 0) {
		log_error("cannot fork: %m");
		status = EXIT_FAILURE_INTERNAL;
		goto cleanup;
	}
	close(exec_error[1]);
	exec_error[1] = -1;

	err = session__expect_exec(s, pid, image);
	if (err) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (err == -ENOENT || err == -ENOEXEC)
			log_error("'%s' has no malloc heaptap can probe (a static program without "
				  "symbols?)", path);
		else
			log_error("cannot trace '%s': %s (heaptap -v shows why)", path,
				  strerror(-err));
		status = err == -EPERM ? EXIT_NO_PRIVILEGE : EXIT_BAD_TARGET;
		goto cleanup;
	}
	if (write(gate[1], "", 1) != 1 ||
	    read(exec_error[0], &exec_errno, sizeof(exec_errno)) == sizeof(exec_errno)) {
		waitpid(pid, NULL, 0);
		log_error("cannot execute '%s': %s", path, strerror(exec_errno));
		status = exec_errno == ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_EXECUTABLE;
		goto cleanup;
	}
	*out = pid;
cleanup:
	for (int i = 0; i < 2; i++) {
		if (gate[i] >= 0)
			close(gate[i]);
		if (exec_error[i] >= 0)
			close(exec_error[i]);
	}
	return status;
}

int command_status(int wstatus)
{
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return WEXITSTATUS(wstatus);
}

int cmd_run(const struct options *opts)
{
	char path[PATH_MAX], image[PATH_MAX];
	struct session *s = NULL;
	int status, err, wstatus = 0, pidfd = -1;
	struct outputs out;
	pid_t pid;

	/* A bad report path fails now, before the command runs, not after the whole job. */
	status = open_outputs(opts, &out);
	if (status != EXIT_OK)
		return status;
	status = resolve_command(opts->command[0], path, image, sizeof(path));
	if (status != EXIT_OK)
		goto cleanup;
	status = open_session(opts, &s);
	if (status != EXIT_OK)
		goto cleanup;
	status = launch_command(s, path, image, opts->command, -1 /* its own output */, &pid);
	if (status != EXIT_OK)
		goto cleanup;
	child = pid;
	catch_stop_signals(forward_signal);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	session__watch(s, pidfd);

	for (;;) {
		err = session__poll(s, 50 /* ms */);
		if (err)
			log_error("reading events failed: %s", strerror(-err));
		if (session__problem(s)) {
			/* The command runs on, untraced: heaptap never harms it. */
			log_error("%s", session__problem(s));
			session__stop(s);
			status = EXIT_USAGE;
			goto cleanup;
		}
		if (waitpid(pid, &wstatus, WNOHANG) == pid)
			break;
	}
	session__watch(s, -1); /* readable from now on */
	session__mark_exited(s, pid, wstatus);
	/* Processes it started may outlive the command a moment (--follow): let them finish. */
	for (int waits = 0; waits < 40 && session__live_targets(s) > 0; waits++)
		session__poll(s, 50 /* ms */);
	session__stop(s);
	status = command_status(wstatus);
	err = write_reports(s, &out, stderr);
	if (err != EXIT_OK && status == 0)
		status = err;
cleanup:
	close_outputs(&out);
	session__free(s);
	if (pidfd >= 0)
		close(pidfd);
	return status;
}
