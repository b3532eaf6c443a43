// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * hold_blocks N READY: allocate N small blocks and hold them; write this process's pid
 * to the file READY, then wait for SIGUSR1 and exit without freeing them. What one live
 * block costs heaptap (owner.sh).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[1]) : 0;
	sigset_t usr1;
	FILE *ready;
	int sig;

	if (argc < 3 || n < 0) {
		fprintf(stderr, "usage: hold_blocks N READY\n");
		return 2;
	}
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	for (long i = 0; i < n; i++) {
		void *p = malloc(24);

		__asm__ volatile("" : : "r"(p) : "memory"); /* held, never freed */
	}
	ready = fopen(argv[2], "w");
	if (!ready)
		return 1;
	fprintf(ready, "%d\n", (int)getpid());
	fclose(ready);
	sigwait(&usr1, &sig);
	return 0;
}
