// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * empty_probes -- COMMAND [ARGS...]: run COMMAND under the probe set heaptap places on
 * the C library (entry probes on the ten entry points, one per address, and return probes
 * on all but free), with programs that do nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "allocator.h"
#include "empty.skel.h"
#include "procmaps.h"
#include "symcache.h"

/* The C library this program maps: the one its children will map too. */
static const struct mapping *own_libc(const struct procmaps *maps)
{
	for (size_t i = 0; i < maps->nr; i++) {
		const char *base = strrchr(maps->maps[i].path, '/');

		if (maps->maps[i].executable && base && !strncmp(base, "/libc.so", 8))
			return &maps->maps[i];
	}
	return NULL;
}

static int attach_empty(struct empty_bpf *skel, pid_t pid, const struct allocator *libc)
{
	for (int f = 0; f < HT_NR_FUNCS; f++) {
		LIBBPF_OPTS(bpf_uprobe_opts, ret_opts, .retprobe = true);

		if (!libc->offsets[f] || allocator__is_alias(libc, f))
			continue;
		if (!bpf_program__attach_uprobe_opts(skel->progs.empty_entry, pid, libc->path,
						     libc->offsets[f], NULL))
			return -errno;
		if (f != HT_FREE &&
		    !bpf_program__attach_uprobe_opts(skel->progs.empty_return, pid, libc->path,
						     libc->offsets[f], &ret_opts))
			return -errno;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct procmaps maps = {};
	struct symcache *cache = symcache__new();
	const struct mapping *m;
	struct object_file *obj;
	struct allocator libc;
	struct empty_bpf *skel;
	int gate[2], status;
	pid_t pid;
	char go;

	if (argc < 3 || strcmp(argv[1], "--")) {
		fprintf(stderr, "usage: empty_probes -- COMMAND [ARGS...]\n");
		return 2;
	}
	if (!cache || procmaps__read(getpid(), &maps) || !(m = own_libc(&maps)) ||
	    !(obj = symcache__get(cache, m->dev, m->inode, m->path))) {
		fprintf(stderr, "empty_probes: cannot find the C library\n");
		return 1;
	}
	allocator__from_object(m->path, obj, &libc);
	skel = empty_bpf__open_and_load();
	if (!skel || pipe(gate)) {
		fprintf(stderr, "empty_probes: cannot load BPF (root?)\n");
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		close(gate[1]);
		if (read(gate[0], &go, 1) != 0)
			_exit(127);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	close(gate[0]);
	if (attach_empty(skel, pid, &libc)) {
		fprintf(stderr, "empty_probes: cannot attach: %s\n", strerror(errno));
		kill(pid, 9);
	}
	close(gate[1]); /* the child reads end-of-file and runs */
	waitpid(pid, &status, 0);
	/* Links are left to the exit: the process owns them for its whole life. */
	empty_bpf__destroy(skel);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
