// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * empty_probes [--entries] [--only FUNC] [--send] [--follow | --mpi] -- COMMAND [ARGS...]:
 * run COMMAND under the probes heaptap places, with programs that do nothing.
 *
 * The probes sit where heaptap places them (user/trace/probe_site.h), or with --entries
 * on the functions' first instructions, where every other tracer places them. --only FUNC
 * probes that one entry point of the C library (malloc, free...) and no other. --send:
 * the return program sends a record of heaptap's call event's size to a ring buffer a
 * thread drains, nothing else: the floor of a program that reports each call.
 *
 * Alone: the C library's allocator probes on COMMAND's process (entry probes on the ten
 * entry points, one per address, and return probes on all but free), as perf links.
 *
 * --follow: the same on every process COMMAND starts, and on each the loader's
 * _dl_debug_state, through uprobe_multi links (heaptap's). A fork tracepoint adds children
 * to the job; each program a process execs is held once, at exec, until its probes are in
 * place: per-process probes cannot see a program's first call otherwise. Never held at
 * loader events; links are closed by a pool of threads once their process exits.
 * --mpi: the same, but only MPI ranks get probes (heaptap run --mpi); the other
 * processes are only followed.
 * On exit, a line on stderr: processes followed and probed, probe hits, total hold time.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "allocator.h"
#include "elfsyms.h"
#include "empty.skel.h"
#include "probe_site.h"
#include "procmaps.h"
#include "rank.h"
#include "symcache.h"
#include "uprobe_links.h"

enum { EMPTY_EV_EXEC = 1, EMPTY_EV_EXIT = 2 }; /* as in empty.bpf.c */

struct empty_event {
	__u32 type;
	__u32 pid;
	__u64 stopped_ns;
};

#define LINKS_PER_PROCESS 3 /* allocator entries, allocator returns, the loader */

struct probed {
	pid_t pid;
	int fds[LINKS_PER_PROCESS];
	int nr;
};

struct follower {
	struct empty_bpf *skel;
	const struct allocator *libc;
	const char *loader_path;
	uint64_t loader_offset;
	bool ranks_only;
	struct link_reaper *reaper;
	struct probed *probed;
	size_t nr_probed, cap_probed;
	unsigned long followed, probed_total;
	double held_ms, max_held_ms;
	int failed;
};

/* The mapping of this program whose file's base name starts with prefix. */
static const struct mapping *own_mapping(const struct procmaps *maps, const char *prefix)
{
	for (size_t i = 0; i < maps->nr; i++) {
		const char *base = strrchr(maps->maps[i].path, '/');

		if (maps->maps[i].executable && base && !strncmp(base + 1, prefix, strlen(prefix)))
			return &maps->maps[i];
	}
	return NULL;
}

/* Which entry points get probes (--only), and where (--entries). */
static int only_func = -1;
static bool at_entries;
static bool send_calls; /* --send */

static bool probed_func(const struct allocator *libc, int f)
{
	if (only_func >= 0)
		return f == only_func && libc->offsets[f];
	return libc->offsets[f] && !allocator__is_alias(libc, f);
}

static uint64_t probe_offset(const struct allocator *libc, int f)
{
	return at_entries ? libc->offsets[f] : libc->sites[f];
}

static int attach_empty(struct empty_bpf *skel, pid_t pid, const struct allocator *libc)
{
	for (int f = 0; f < HT_NR_FUNCS; f++) {
		LIBBPF_OPTS(bpf_uprobe_opts, ret_opts, .retprobe = true);

		if (!probed_func(libc, f))
			continue;
		if (!bpf_program__attach_uprobe_opts(skel->progs.empty_entry, pid, libc->path,
						     probe_offset(libc, f), NULL))
			return -errno;
		if (f != HT_FREE &&
		    !bpf_program__attach_uprobe_opts(skel->progs.empty_return, pid, libc->path,
						     probe_offset(libc, f), &ret_opts))
			return -errno;
	}
	return 0;
}

/* heaptap's three links on one process: allocator entries and returns, and the loader. */
static int attach_multi(struct follower *fl, struct probed *p)
{
	uint64_t entries[HT_NR_FUNCS], returns[HT_NR_FUNCS], cookies[HT_NR_FUNCS] = {};
	size_t nr_entries = 0, nr_returns = 0;
	int fd;

	for (int f = 0; f < HT_NR_FUNCS; f++) {
		if (!probed_func(fl->libc, f))
			continue;
		entries[nr_entries++] = probe_offset(fl->libc, f);
		if (f != HT_FREE)
			returns[nr_returns++] = probe_offset(fl->libc, f);
	}
	fd = uprobe_multi__attach(bpf_program__fd(fl->skel->progs.multi_entry), fl->libc->path,
				  entries, cookies, nr_entries, p->pid, false);
	if (fd >= 0) {
		p->fds[p->nr++] = fd;
		fd = uprobe_multi__attach(bpf_program__fd(fl->skel->progs.multi_return),
					  fl->libc->path, returns, cookies, nr_returns, p->pid, true);
	}
	if (fd >= 0) {
		p->fds[p->nr++] = fd;
		fd = uprobe_multi__attach(bpf_program__fd(fl->skel->progs.multi_entry),
					  fl->loader_path, &fl->loader_offset, cookies, 1, p->pid,
					  false);
	}
	if (fd >= 0)
		p->fds[p->nr++] = fd;
	return fd < 0 ? fd : 0;
}

static struct probed *probed_of(struct follower *fl, pid_t pid, bool add)
{
	for (size_t i = 0; i < fl->nr_probed; i++) {
		if (fl->probed[i].pid == pid)
			return &fl->probed[i];
	}
	if (!add)
		return NULL;
	if (fl->nr_probed == fl->cap_probed) {
		size_t cap = fl->cap_probed ? 2 * fl->cap_probed : 64;
		struct probed *grown = realloc(fl->probed, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		fl->probed = grown;
		fl->cap_probed = cap;
	}
	fl->probed[fl->nr_probed] = (struct probed){ .pid = pid };
	return &fl->probed[fl->nr_probed++];
}

/* Its links go to the reaper's threads: the job never waits for a grace period. */
static void unprobe(struct follower *fl, pid_t pid)
{
	struct probed *p = probed_of(fl, pid, false);

	if (!p)
		return;
	for (int i = 0; i < p->nr; i++)
		link_reaper__close(fl->reaper, p->fds[i], -1);
	*p = fl->probed[--fl->nr_probed];
}

static void on_exec(struct follower *fl, const struct empty_event *ev)
{
	struct mpi_identity mpi;
	struct probed *p;
	struct timespec now;
	int err;

	fl->followed++;
	unprobe(fl, ev->pid); /* the program it ran before */
	mpi_identity_of_process(ev->pid, &mpi);
	if (!fl->ranks_only || mpi.rank >= 0) {
		p = probed_of(fl, ev->pid, true);
		err = p ? attach_multi(fl, p) : -ENOMEM;
		if (err) {
			fprintf(stderr, "empty_probes: cannot probe pid %u: %s\n", ev->pid,
				strerror(-err));
			fl->failed = 1;
		}
		fl->probed_total++;
	}
	if (!ev->stopped_ns)
		return;
	kill(ev->pid, SIGCONT);
	clock_gettime(CLOCK_MONOTONIC, &now); /* bpf_ktime_get_ns()'s clock */
	double ms = ((now.tv_sec * 1000000000ull + now.tv_nsec) - ev->stopped_ns) / 1e6;
	fl->held_ms += ms;
	if (ms > fl->max_held_ms)
		fl->max_held_ms = ms;
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct empty_event *ev = data;

	if (size < sizeof(*ev))
		return 0;
	if (ev->type == EMPTY_EV_EXEC)
		on_exec(ctx, ev);
	else if (ev->type == EMPTY_EV_EXIT)
		unprobe(ctx, ev->pid);
	return 0;
}

/* The probe hits of every CPU. */
static unsigned long long total_hits(struct empty_bpf *skel)
{
	int nr_cpus = libbpf_num_possible_cpus();
	unsigned long long total = 0;
	__u64 per_cpu[nr_cpus > 0 ? nr_cpus : 1];
	__u32 zero = 0;

	if (nr_cpus <= 0 || bpf_map_lookup_elem(bpf_map__fd(skel->maps.hits), &zero, per_cpu))
		return 0;
	for (int i = 0; i < nr_cpus; i++)
		total += per_cpu[i];
	return total;
}

/* Run the job under the probes, following every process it starts. */
static int follow(struct follower *fl, pid_t child, int gate)
{
	struct ring_buffer *rb;
	__u32 key = child;
	__u8 one = 1;
	int status = 0;

	rb = ring_buffer__new(bpf_map__fd(fl->skel->maps.events), on_event, fl, NULL);
	fl->reaper = link_reaper__new(8);
	if (!rb || !fl->reaper || empty_bpf__attach(fl->skel) ||
	    bpf_map_update_elem(bpf_map__fd(fl->skel->maps.targets), &key, &one, BPF_ANY)) {
		fprintf(stderr, "empty_probes: cannot follow: %s\n", strerror(errno));
		kill(child, SIGKILL);
		fl->failed = 1;
	}
	close(gate); /* the child reads end-of-file and execs: held there */
	while (waitpid(child, &status, WNOHANG) == 0)
		ring_buffer__poll(rb, 50 /* ms */);
	ring_buffer__consume(rb);
	for (size_t i = fl->nr_probed; i > 0; i--)
		unprobe(fl, fl->probed[i - 1].pid);
	link_reaper__free(fl->reaper);
	fprintf(stderr,
		"empty_probes: %lu processes followed, %lu probed, %llu probe hits, held %.1f ms "
		"in all (longest %.2f ms), %llu events lost\n",
		fl->followed, fl->probed_total, total_hits(fl->skel), fl->held_ms, fl->max_held_ms,
		(unsigned long long)fl->skel->bss->lost);
	if (fl->skel->bss->lost)
		fl->failed = 1;
	ring_buffer__free(rb);
	return status;
}

/* --send: the calls' records drained as heaptap's consumer drains its events. */
static atomic_bool draining = true;

/* Read whole, as heaptap's consumer reads each event (the lines move to its CPU). */
static int read_record(void *ctx, void *data, size_t size)
{
	unsigned long long *sum = ctx;
	const unsigned char *byte = data;

	for (size_t i = 0; i < size; i++)
		*sum += byte[i] + 1;
	return 0;
}

static void *drain_calls(void *ring)
{
	while (atomic_load(&draining))
		ring_buffer__poll(ring, 50 /* ms, as heaptap */);
	ring_buffer__consume(ring);
	return NULL;
}

int main(int argc, char **argv)
{
	struct procmaps maps = {};
	struct symcache *cache = symcache__new();
	struct follower fl = {};
	const struct mapping *m, *ld;
	struct object_file *obj, *loader;
	struct allocator libc;
	struct ring_buffer *calls = NULL;
	unsigned long long sent_bytes = 0;
	pthread_t drainer;
	struct empty_bpf *skel;
	int gate[2], status, cmd = 1;
	bool following = false;
	pid_t pid;
	char go;

	for (; cmd < argc && strcmp(argv[cmd], "--"); cmd++) {
		if (!strcmp(argv[cmd], "--follow") || !strcmp(argv[cmd], "--mpi")) {
			following = true;
			fl.ranks_only = !strcmp(argv[cmd], "--mpi");
		} else if (!strcmp(argv[cmd], "--entries")) {
			at_entries = true;
		} else if (!strcmp(argv[cmd], "--send")) {
			send_calls = true;
		} else if (!strcmp(argv[cmd], "--only") && cmd + 1 < argc) {
			for (only_func = 0; only_func < HT_NR_FUNCS; only_func++) {
				if (!strcmp(ht_func_names[only_func], argv[cmd + 1]))
					break;
			}
			if (only_func == HT_NR_FUNCS)
				break;
			cmd++;
		} else {
			break;
		}
	}
	if (argc < cmd + 2 || strcmp(argv[cmd], "--")) {
		fprintf(stderr, "usage: empty_probes [--entries] [--only FUNC] [--send] "
				"[--follow | --mpi] -- COMMAND [ARGS...]\n");
		return 2;
	}
	cmd++;
	/* The job maps the C library and loader this program maps: the system's. */
	if (!cache || procmaps__read(getpid(), &maps) || !(m = own_mapping(&maps, "libc.so")) ||
	    !(obj = symcache__get(cache, m->dev, m->inode, m->path)) ||
	    !(ld = own_mapping(&maps, "ld-linux")) ||
	    !(loader = symcache__get(cache, ld->dev, ld->inode, ld->path)) || !loader->syms ||
	    !(fl.loader_offset = elfsyms__offset_of(loader->syms, "_dl_debug_state"))) {
		fprintf(stderr, "empty_probes: cannot find the C library and the loader\n");
		return 1;
	}
	allocator__from_object(m->path, obj, &libc);
	if (!at_entries) /* where heaptap probes it: its first instruction, a ret */
		fl.loader_offset = probe_site__place(loader, fl.loader_offset);
	fl.libc = &libc;
	fl.loader_path = ld->path;
	skel = empty_bpf__open();
	if (skel) {
		bpf_program__set_expected_attach_type(skel->progs.multi_entry,
						      HT_ATTACH_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.multi_return,
						      HT_ATTACH_UPROBE_MULTI);
		/* Only the tracepoints attach by themselves; uprobes go per process. */
		bpf_program__set_autoattach(skel->progs.empty_entry, false);
		bpf_program__set_autoattach(skel->progs.empty_return, false);
		bpf_program__set_autoattach(skel->progs.multi_entry, false);
		bpf_program__set_autoattach(skel->progs.multi_return, false);
	}
	if (skel)
		skel->rodata->send_calls = send_calls;
	if (!skel || empty_bpf__load(skel) || pipe(gate)) {
		fprintf(stderr, "empty_probes: cannot load BPF (root?)\n");
		return 1;
	}
	if (send_calls &&
	    (!(calls = ring_buffer__new(bpf_map__fd(skel->maps.calls), read_record,
					&sent_bytes, NULL)) ||
	     pthread_create(&drainer, NULL, drain_calls, calls))) {
		fprintf(stderr, "empty_probes: cannot drain the calls' ring\n");
		return 1;
	}
	fl.skel = skel;
	pid = fork();
	if (pid == 0) {
		close(gate[1]);
		if (read(gate[0], &go, 1) != 0)
			_exit(127);
		execvp(argv[cmd], argv + cmd);
		_exit(127);
	}
	close(gate[0]);
	if (following) {
		status = follow(&fl, pid, gate[1]);
	} else {
		if (attach_empty(skel, pid, &libc)) {
			fprintf(stderr, "empty_probes: cannot attach: %s\n", strerror(errno));
			kill(pid, 9);
		}
		close(gate[1]); /* the child reads end-of-file and runs */
		waitpid(pid, &status, 0);
	}
	if (calls) {
		atomic_store(&draining, false);
		pthread_join(drainer, NULL);
		ring_buffer__free(calls);
		fprintf(stderr, "empty_probes: %llu bytes of records sent, %llu records lost\n",
			sent_bytes, (unsigned long long)skel->bss->lost);
	}
	/* Perf links are left to the exit: the process owns them for its whole life. */
	empty_bpf__destroy(skel);
	if (fl.failed)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
