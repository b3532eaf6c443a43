// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Loads a library only when told (SIGUSR1), after heaptap attached: the library's unwind
 * table must be in place before its constructor runs.
 *
 * dlopener --truth FILE
 *   waits for SIGUSR1, dlopens libplugin.so from its own directory, calls plugin_work(),
 *   writes {"pid": N, "work_calls": N} to FILE, and waits until killed.
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char self[PATH_MAX], plugin[PATH_MAX + 32];
	int (*work)(void), calls, sig;
	sigset_t usr1;
	ssize_t len;
	void *lib;
	FILE *f;

	if (argc != 3 || strcmp(argv[1], "--truth")) {
		fprintf(stderr, "usage: dlopener --truth FILE\n");
		return 2;
	}
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	sigwait(&usr1, &sig);

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[len > 0 ? len : 0] = '\0';
	snprintf(plugin, sizeof(plugin), "%s/libplugin.so", dirname(self));
	lib = dlopen(plugin, RTLD_NOW);
	if (!lib || !(work = (int (*)(void))dlsym(lib, "plugin_work"))) {
		fprintf(stderr, "dlopener: %s\n", dlerror());
		return 1;
	}
	calls = work();
	f = fopen(argv[2], "w");
	if (!f)
		return 1;
	fprintf(f, "{\"pid\": %d, \"work_calls\": %d}\n", (int)getpid(), calls);
	fclose(f);
	for (;;)
		pause();
}
