// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A launcher: starts COUNT copies of a command, BATCH at a time, each batch waited for,
 * and says how far it got. With --then-wait it stays until SIGUSR1 once all are done, so
 * that whoever traces it keeps running.
 *
 * spawner --count N [--batch B] [--progress FILE] [--then-wait] -- PROGRAM ARGS...
 *   FILE is rewritten with "done <n> failed <f>" after each batch.
 *   Exit status: 0 if every child exited 0, else 1.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void progress(const char *path, int done, int failed)
{
	char tmp[4096];
	FILE *f;

	if (!path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "done %d failed %d\n", done, failed);
	fclose(f);
	rename(tmp, path); /* whoever polls never reads half a line */
}

int main(int argc, char **argv)
{
	const char *progress_path = NULL;
	int count = 1, batch = 1, done = 0, failed = 0, first = 0;
	bool then_wait = false;
	sigset_t usr1;

	for (int i = 1; i < argc && !first; i++) {
		if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
			batch = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--progress") && i + 1 < argc)
			progress_path = argv[++i];
		else if (!strcmp(argv[i], "--then-wait"))
			then_wait = true;
		else if (!strcmp(argv[i], "--") && i + 1 < argc)
			first = i + 1;
		else {
			fprintf(stderr, "spawner: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	if (!first || batch < 1) {
		fprintf(stderr, "usage: spawner --count N [--batch B] -- PROGRAM ARGS...\n");
		return 2;
	}
	/* Blocked from the start: a SIGUSR1 sent early is kept, not fatal. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	while (done < count) {
		int n = count - done < batch ? count - done : batch, status;

		for (int i = 0; i < n; i++) {
			pid_t pid = fork();

			if (pid == 0) {
				sigprocmask(SIG_UNBLOCK, &usr1, NULL);
				execv(argv[first], &argv[first]);
				_exit(127);
			}
			if (pid < 0) {
				perror("fork");
				failed++;
			}
		}
		while (wait(&status) > 0)
			failed += !WIFEXITED(status) || WEXITSTATUS(status);
		done += n;
		progress(progress_path, done, failed);
	}
	if (then_wait) {
		int sig;

		sigwait(&usr1, &sig);
	}
	return failed ? 1 : 0;
}
