// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A program that checksums its own work: allocations, and a plugin loaded and unloaded
 * at every step (loader events). Its output depends only on its arguments.
 *
 * checksum_loop --steps N [--step-ms MS] [--log FILE]
 *   N steps, then prints the checksum. --log appends "step-<i> <CLOCK_MONOTONIC ns>".
 * checksum_loop --rounds [--steps N] [--step-ms MS] [--ready FILE]
 *   repeats the same N steps in rounds until SIGUSR1 (or SIGTERM), each round checked
 *   against the first; then prints the checksum and how many rounds differed (none
 *   unless something corrupted the process). FILE is created after the first round.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cksum.h"

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t round_of_steps(int steps, int step_ms, const char *dir, int log)
{
	uint64_t h = cksum_libm(0xcbf29ce484222325ull);
	char what[32];

	for (int step = 1; step <= steps && h; step++) {
		h = cksum_step(h, step, dir);
		snprintf(what, sizeof(what), "step-%d", step);
		cksum_mark(log, what);
		if (step_ms)
			cksum_sleep_ms(step_ms);
	}
	return h;
}

int main(int argc, char **argv)
{
	const char *log_path = NULL, *ready = NULL, *dir = cksum_self_dir();
	struct sigaction sa = { .sa_handler = on_stop };
	int steps = 10, step_ms = 0, log = -1;
	unsigned long rounds = 0, differed = 0;
	bool in_rounds = false;
	uint64_t first, h;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds"))
			in_rounds = true;
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			steps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--step-ms") && i + 1 < argc)
			step_ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--log") && i + 1 < argc)
			log_path = argv[++i];
		else if (!strcmp(argv[i], "--ready") && i + 1 < argc)
			ready = argv[++i];
		else {
			fprintf(stderr, "checksum_loop: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	if (log_path) {
		log = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (log < 0) {
			perror(log_path);
			return 2;
		}
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	first = h = round_of_steps(steps, step_ms, dir, log);
	if (ready)
		close(open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	while (in_rounds && !stop && h) {
		h = round_of_steps(steps, step_ms, dir, -1);
		rounds++;
		differed += h != first;
	}
	if (!h) {
		fprintf(stderr, "checksum_loop: the work failed\n");
		return 1;
	}
	printf("checksum %016" PRIx64 "\n", first);
	if (in_rounds)
		printf("rounds that differed from the first: %lu\n", differed);
	fprintf(stderr, "checksum_loop: %lu rounds after the first\n", rounds);
	return differed ? 1 : 0;
}
