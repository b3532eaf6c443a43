// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Start a command under tracing, held until its probes are in place; and heaptap run. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cmd_run.h"
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

/*
 * Can path be executed? 0 or -errno. A directory passes access(X_OK) but not execve(),
 * which says EACCES for it: -EISDIR says why.
 */
static int executable(const char *path)
{
	struct stat st;

	if (access(path, X_OK))
		return -errno;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	return 0;
}

/* The file execvp() would run, as execvp finds it. 0 or -errno. */
static int find_command(const char *name, char *path, size_t size)
{
	const char *dirs = getenv("PATH");
	int err = -ENOENT;

	if (strchr(name, '/')) {
		snprintf(path, size, "%s", name);
		return executable(path);
	}
	if (!dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	while (*dirs) {
		size_t len = strcspn(dirs, ":");
		int e;

		snprintf(path, size, "%.*s/%s", (int)len, len ? dirs : ".", name);
		e = executable(path);
		if (!e)
			return 0;
		if (e == -EACCES || e == -EISDIR)
			err = e;
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

static int cmd_run(const void *options)
{
	char path[PATH_MAX], image[PATH_MAX];
	struct session *s = NULL;
	int status, err, wstatus = 0, pidfd = -1;
	const struct run_options *o = options;
	struct outputs out;
	pid_t pid;

	status = setup_tracing();
	if (status != EXIT_OK)
		return status;
	/* A bad report path fails now, before the command runs, not after the whole job. */
	status = open_outputs(&o->out, &o->trace, false, &out);
	if (status != EXIT_OK)
		return status;
	status = resolve_command(o->trace.command[0], path, image, sizeof(path));
	if (status != EXIT_OK)
		goto cleanup;
	/* pprof's locations carry source lines and inlined functions. */
	status = open_session(&o->trace, o->out.stacks_path || o->out.pprof_path, false, &s);
	if (status != EXIT_OK)
		goto cleanup;
	status = launch_command(s, path, image, o->trace.command, -1 /* its own output */, &pid);
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
	close_outputs_and_session(&out, s);
	if (pidfd >= 0)
		close(pidfd);
	return status;
}

static const struct argp_option options[] = {
	CLI_OPTION_ATTRIBUTION,
	CLI_OPTION_JSON_FILE,
	{ "output", 'o', "FILE", 0, "write the text report to FILE instead of standard error" },
	CLI_OPTION_STACKS,
	CLI_OPTIONS_EXPORTS,
	CLI_OPTIONS_TREE,
	CLI_OPTIONS_TEXT_LAYOUT,
	{ "follow", CLI_OPT_FOLLOW, NULL, 0, "trace every process COMMAND starts too, each from "
					     "its first instruction (mpirun and its ranks)" },
	{ "mpi", CLI_OPT_MPI, NULL, 0, "like --follow, but trace only the processes with an MPI "
				       "rank" },
	CLI_OPTION_UNWIND,
	CLI_OPTION_CONSUMERS,
	CLI_OPTIONS_BUDGETS,
	CLI_OPTION_LIVE_BLOCKS,
	CLI_OPTION_SAMPLE_BYTES("0"),
	CLI_OPTION_ALLOCATOR,
	CLI_OPTION_SAMPLE_INTERVAL,
	CLI_OPTION_SITE_DEPTH,
	{},
};

static error_t parse(struct cli_state *c, int key, char *arg)
{
	struct run_options *o = c->opts;
	error_t err;

	switch (key) {
	case ARGP_KEY_INIT:
		cli_trace_defaults(&o->trace);
		cli_outputs_defaults(&o->out);
		return 0;
	case ARGP_KEY_ARG:
		return cli_take_command(c, &o->trace.command);
	case ARGP_KEY_END:
		if (!o->trace.command)
			return cli_usage_error(c->sub, "%s", "run needs a command: heaptap run "
					       "[OPTION...] -- COMMAND");
		return cli_check_outputs(c->sub, &o->out);
	}
	err = cli_parse_trace(c, &o->trace, key, arg);
	return err == ARGP_ERR_UNKNOWN ? cli_parse_outputs(c, &o->out, key, arg) : err;
}

static void free_options(void *opts)
{
	struct run_options *o = opts;

	cli_trace_free(&o->trace);
}

const struct cli_command run_command = {
	.name = "run",
	.summary = "trace COMMAND from its first instruction",
	.man_section = 8,
	.options = options,
	.args_doc = "[--] COMMAND [ARG...]",
	.doc = "Trace COMMAND from its first instruction. The report goes to standard error "
	       "(COMMAND owns standard output); heaptap exits with COMMAND's status (128+N if "
	       "signal N killed it).\v" CLI_REPORT_FILES_DOC,
	.command_follows = true,
	.opts_size = sizeof(struct run_options),
	.parse = parse,
	.free = free_options,
	.run = cmd_run,
};
