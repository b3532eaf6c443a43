// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A running process whose resident set grows while it is traced: on SIGUSR1 it mallocs
 * GROW_MIB MiB in 1 MiB blocks, touching every page, keeps them, writes VmHWM (kB) of
 * /proc/self/status to the truth file, and waits to be killed.
 *
 * rss_grow TRUTH_FILE
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROW_MIB 16

int main(int argc, char **argv)
{
	static void *blocks[GROW_MIB];
	char status[4096], *field;
	sigset_t usr1;
	FILE *f;
	size_t n;
	int sig;

	if (argc != 2)
		return 2;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	sigwait(&usr1, &sig);
	for (int i = 0; i < GROW_MIB; i++) {
		blocks[i] = malloc(1 << 20);
		if (!blocks[i])
			return 1;
		memset(blocks[i], 1, 1 << 20);
	}
	f = fopen("/proc/self/status", "r");
	if (!f)
		return 1;
	n = fread(status, 1, sizeof(status) - 1, f);
	fclose(f);
	status[n] = '\0';
	field = strstr(status, "VmHWM:");
	f = fopen(argv[1], "w");
	if (!f || !field)
		return 1;
	fprintf(f, "%ld\n", strtol(field + 6, NULL, 10));
	if (fclose(f))
		return 1;
	for (;;)
		sigwait(&usr1, &sig);
}
