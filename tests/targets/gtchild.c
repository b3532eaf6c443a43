// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A small process that drives libgt (its truth: every call, per entry function) and
 * records how it was treated: the SIGCONTs it received (a process heaptap held gets one
 * when it is let go). For many short-lived or idle processes, for PID reuse, and for
 * exec and exit-status reports.
 *
 * gtchild [--wait] [--blocks N] [--truth FILE | --truth-dir DIR] [--state FILE]
 *         [--exit CODE | --raise SIGNAL | --exec PROGRAM ARGS...]
 *   --wait       block until SIGUSR1 before working (to be attached to first)
 *   --blocks     gt_make_blocks(N) (and resizes when N is odd), then frees them all
 *   --truth-dir  the truth goes to DIR/truth-<pid>.json
 *   --state      write {"pid": P, "sigconts": N} to FILE before ending
 *   --exit       exit with CODE; --raise: end by SIGNAL; --exec: exec the rest of argv
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gtlib.h"

static volatile sig_atomic_t sigconts, go;

static void on_sigcont(int sig)
{
	(void)sig;
	sigconts++;
}

static void on_sigusr1(int sig)
{
	(void)sig;
	go = 1;
}

/* Written with write(): stdio would allocate outside libgt's record. */
static int write_state(const char *path)
{
	char text[128];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), n;
	bool ok;

	if (fd < 0)
		return -1;
	n = snprintf(text, sizeof(text), "{\"pid\": %d, \"sigconts\": %d}\n", (int)getpid(),
		     (int)sigconts);
	ok = write(fd, text, n) == n;
	return close(fd) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *truth = NULL, *truth_dir = NULL, *state = NULL;
	struct sigaction sa = { .sa_handler = on_sigcont, .sa_flags = SA_RESTART };
	int blocks = 10, code = 0, sig = 0;
	char path[4096];
	char **exec_argv = NULL;
	bool wait = false;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGCONT, &sa, NULL);
	for (int i = 1; i < argc && !exec_argv; i++) {
		if (!strcmp(argv[i], "--wait"))
			wait = true;
		else if (!strcmp(argv[i], "--blocks") && i + 1 < argc)
			blocks = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--truth") && i + 1 < argc)
			truth = argv[++i];
		else if (!strcmp(argv[i], "--truth-dir") && i + 1 < argc)
			truth_dir = argv[++i];
		else if (!strcmp(argv[i], "--state") && i + 1 < argc)
			state = argv[++i];
		else if (!strcmp(argv[i], "--exit") && i + 1 < argc)
			code = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--raise") && i + 1 < argc)
			sig = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--exec") && i + 1 < argc)
			exec_argv = &argv[i + 1];
		else {
			fprintf(stderr, "gtchild: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	if (wait) {
		/* A handler, not sigwait: /proc/PID/status (SigCgt) then shows it is ready. */
		struct sigaction usr1 = { .sa_handler = on_sigusr1 };
		sigset_t blocked, during;

		sigemptyset(&usr1.sa_mask);
		sigemptyset(&blocked);
		sigaddset(&blocked, SIGUSR1);
		sigprocmask(SIG_BLOCK, &blocked, &during);
		sigaction(SIGUSR1, &usr1, NULL);
		sigdelset(&during, SIGUSR1);
		while (!go)
			sigsuspend(&during);
	}
	gt_make_blocks(blocks);
	if (blocks % 2)
		gt_resize_blocks();
	gt_release_blocks();
	if (truth_dir) {
		snprintf(path, sizeof(path), "%s/truth-%d.json", truth_dir, (int)getpid());
		truth = path;
	}
	if (truth && gt_truth_write(truth)) {
		perror(truth);
		return 1;
	}
	if (state && write_state(state)) {
		perror(state);
		return 1;
	}
	if (exec_argv) {
		execv(exec_argv[0], exec_argv);
		perror(exec_argv[0]);
		return 127;
	}
	if (sig)
		raise(sig);
	return code;
}
