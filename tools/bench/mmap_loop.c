// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * mmap+munmap pairs for the OS view's cost: mmap_loop N [DIR]. With DIR it writes
 * DIR/ready and waits for DIR/go before its loop, writes DIR/done after it, and waits for
 * DIR/exit: the bench reads the BPF statistics around the loop while heaptap still runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void touch(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fclose(f))
		exit(1);
}

static void await(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (access(path, F_OK))
		usleep(10000);
}

static __attribute__((noinline)) void pairs(long n)
{
	for (long i = 0; i < n; i++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED || munmap(p, 4096))
			exit(1);
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	const char *dir = argc > 2 ? argv[2] : NULL;

	if (dir) {
		touch(dir, "ready");
		await(dir, "go");
	}
	pairs(n);
	if (dir) {
		touch(dir, "done");
		await(dir, "exit");
	}
	return 0;
}
