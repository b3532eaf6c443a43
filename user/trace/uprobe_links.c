// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include "kernel_features.h"
#include "uprobe_events.h"
#include "uprobe_links.h"

/*
 * Without uprobe_multi links (before Linux 6.6, or 6.6 to 6.9 whose links filter threads,
 * not processes): one perf event per offset, opened for the process. Where tracefs allows,
 * on a uprobe event shared by every process (uprobe_events.h), which the program is linked
 * to once; else on the uprobe PMU, a probe of its own with the program linked to it (a BPF
 * perf link, which carries the cookie: 5.15). The kernel runs the program for every thread
 * of the processes the event was opened for (its filter compares address spaces), as a
 * uprobe_multi link's.
 *
 * A group of such fds stands behind one fd, the first's: the callers hold one fd per file
 * and direction either way, and the reaper closes the group.
 */
struct link_group {
	int handle;
	size_t nr;
	int *fds; /* fds[0] == handle */
};

static pthread_mutex_t groups_lock = PTHREAD_MUTEX_INITIALIZER;
static struct link_group *groups;
static size_t nr_groups, cap_groups;

/* The uprobe PMU's type, and the config bit that makes a probe a return probe. */
static int pmu_type = -1, retprobe_bit = -1;

#define UPROBE_MULTI_RETURN 1u

static int read_number(const char *path, const char *prefix)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	int n = -1;

	if (!f)
		return -errno;
	if (fgets(buf, sizeof(buf), f) && !strncmp(buf, prefix, strlen(prefix)))
		n = atoi(buf + strlen(prefix));
	fclose(f);
	return n < 0 ? -EINVAL : n;
}

static int pmu_err;

static void read_pmu(void)
{
	pmu_type = read_number("/sys/bus/event_source/devices/uprobe/type", "");
	retprobe_bit = read_number("/sys/bus/event_source/devices/uprobe/format/retprobe",
				   "config:");
	pmu_err = pmu_type < 0 ? pmu_type : retprobe_bit < 0 ? retprobe_bit : 0;
}

static int uprobe_pmu(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, read_pmu);
	return pmu_err;
}

static int perf_uprobe_link(int prog_fd, const char *path, uint64_t offset, uint64_t cookie,
			    pid_t pid, bool retprobe)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .perf_event.bpf_cookie = cookie);
	struct perf_event_attr attr;
	int pfd, link;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = pmu_type;
	attr.config = retprobe ? 1ull << retprobe_bit : 0;
	attr.config1 = (uint64_t)(uintptr_t)path;
	attr.config2 = offset;
	pfd = syscall(__NR_perf_event_open, &attr, pid, pid < 0 ? 0 : -1, -1,
		      PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -errno;
	link = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &opts);
	if (link < 0)
		link = -errno;
	/* The link holds the event: one fd per probe, not two. */
	close(pfd);
	return link;
}

/* pid's probe at offset: on the shared tracefs event where there can be one. */
static int perf_uprobe(int prog_fd, const char *path, uint64_t offset, uint64_t cookie, pid_t pid,
		       bool retprobe)
{
	int fd = uprobe_events__open(prog_fd, path, offset, cookie, pid, retprobe);

	if (fd != -EOPNOTSUPP)
		return fd;
	return perf_uprobe_link(prog_fd, path, offset, cookie, pid, retprobe);
}

static int remember_group(int *fds, size_t nr)
{
	pthread_mutex_lock(&groups_lock);
	if (nr_groups == cap_groups) {
		size_t cap = cap_groups ? cap_groups * 2 : 64;
		struct link_group *grown = realloc(groups, cap * sizeof(*grown));

		if (!grown) {
			pthread_mutex_unlock(&groups_lock);
			return -ENOMEM;
		}
		groups = grown;
		cap_groups = cap;
	}
	groups[nr_groups++] = (struct link_group){ fds[0], nr, fds };
	pthread_mutex_unlock(&groups_lock);
	return fds[0];
}

/* The group fd stands for, taken from the table; NULL fds when fd is a link of its own. */
static struct link_group take_group(int fd)
{
	struct link_group g = { fd, 1, NULL };

	pthread_mutex_lock(&groups_lock);
	for (size_t i = 0; i < nr_groups; i++) {
		if (groups[i].handle == fd) {
			g = groups[i];
			groups[i] = groups[--nr_groups];
			break;
		}
	}
	pthread_mutex_unlock(&groups_lock);
	return g;
}

static void close_links(int fd)
{
	struct link_group g;

	if (fd < 0)
		return;
	g = take_group(fd);
	if (!g.fds) {
		close(fd);
		return;
	}
	/* A PMU uprobe's close waits for the kernel's grace periods, one event at a time. */
	for (size_t i = 0; i < g.nr; i++)
		close(g.fds[i]);
	free(g.fds);
}

static int perf_uprobes_attach(int prog_fd, const char *path, const uint64_t *offsets,
			       const uint64_t *cookies, size_t nr, pid_t pid, bool retprobe)
{
	int *fds, err = uprobe_pmu();
	size_t done;

	if (err)
		return err;
	if (nr == 0)
		return -EINVAL;
	fds = calloc(nr, sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	for (done = 0; done < nr; done++) {
		fds[done] = perf_uprobe(prog_fd, path, offsets[done], cookies[done], pid, retprobe);
		if (fds[done] < 0) {
			err = fds[done];
			break;
		}
	}
	if (!err && nr == 1) {
		err = fds[0];
		free(fds);
		return err;
	}
	if (!err)
		err = remember_group(fds, nr);
	if (err < 0) {
		for (size_t i = 0; i < done; i++)
			close(fds[i]);
		free(fds);
	}
	return err;
}

unsigned int uprobe_links__attach_type(void)
{
	/* 0: a kprobe program's default, which perf event links take. */
	return kernel_has(KF_UPROBE_MULTI) == 0 ? 0 : HT_ATTACH_UPROBE_MULTI;
}

int uprobe_multi__attach(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, size_t nr, pid_t pid, bool retprobe)
{
	if (kernel_has(KF_UPROBE_MULTI) == 0)
		return perf_uprobes_attach(prog_fd, path, offsets, cookies, nr, pid, retprobe);
	return uprobe_multi_link_create(prog_fd, HT_ATTACH_UPROBE_MULTI, path, offsets, cookies,
					nr, retprobe ? UPROBE_MULTI_RETURN : 0, pid);
}

void uprobe_links__prepare(void)
{
	if (kernel_has(KF_UPROBE_MULTI) == 0)
		uprobe_events__prepare();
}

void uprobe_links__release(void)
{
	uprobe_events__release();
}

/* Links one worker closes, in this order (-1: none). */
struct reap_order {
	int first, then;
};

struct link_reaper {
	pthread_mutex_t lock;
	pthread_cond_t queued, done;
	struct reap_order *queue;
	size_t nr, cap;
	size_t closing; /* taken from the queue, not yet closed */
	bool stopping;
	unsigned int nr_threads;
	pthread_t *threads;
};

static void *reap(void *arg)
{
	struct link_reaper *r = arg;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		struct reap_order order;

		while (r->nr == 0 && !r->stopping)
			pthread_cond_wait(&r->queued, &r->lock);
		if (r->nr == 0)
			break;
		order = r->queue[--r->nr];
		r->closing++;
		pthread_mutex_unlock(&r->lock);
		/* The wait for a grace period happens here. */
		close_links(order.first);
		close_links(order.then);
		pthread_mutex_lock(&r->lock);
		r->closing--;
		/* A flush waits for none left, a queuer for room (link_reaper__close). */
		pthread_cond_broadcast(&r->done);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

struct link_reaper *link_reaper__new(unsigned int threads)
{
	struct link_reaper *r = calloc(1, sizeof(*r));
	pthread_attr_t attr;

	if (!r)
		return NULL;
	r->threads = calloc(threads, sizeof(*r->threads));
	if (!r->threads) {
		free(r);
		return NULL;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->queued, NULL);
	pthread_cond_init(&r->done, NULL);
	/* They only call close(): a small stack each. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (; r->nr_threads < threads; r->nr_threads++) {
		if (pthread_create(&r->threads[r->nr_threads], &attr, reap, r))
			break;
	}
	pthread_attr_destroy(&attr);
	if (r->nr_threads == 0) {
		link_reaper__free(r);
		return NULL;
	}
	return r;
}

/*
 * Processes whose links wait to be closed, at most: each holds a few descriptors until its
 * links are gone, and processes that end faster than the kernel removes their probes
 * would otherwise take every descriptor heaptap may have (a launcher's 300 short-lived
 * children under ulimit -n 256 did), and the next process could not be traced.
 */
#define REAP_BACKLOG 48

void link_reaper__close(struct link_reaper *r, int first, int then)
{
	pthread_mutex_lock(&r->lock);
	while (r->nr + r->closing >= REAP_BACKLOG && !r->stopping)
		pthread_cond_wait(&r->done, &r->lock);
	if (r->nr == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct reap_order *grown = realloc(r->queue, cap * sizeof(*grown));

		if (!grown) {
			pthread_mutex_unlock(&r->lock);
			/* Slow, but never leaked. */
			close_links(first);
			close_links(then);
			return;
		}
		r->queue = grown;
		r->cap = cap;
	}
	r->queue[r->nr++] = (struct reap_order){ first, then };
	pthread_cond_signal(&r->queued);
	pthread_mutex_unlock(&r->lock);
}

void link_reaper__flush(struct link_reaper *r)
{
	pthread_mutex_lock(&r->lock);
	while (r->nr > 0 || r->closing > 0)
		pthread_cond_wait(&r->done, &r->lock);
	pthread_mutex_unlock(&r->lock);
}

void link_reaper__free(struct link_reaper *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stopping = true;
	pthread_cond_broadcast(&r->queued);
	pthread_mutex_unlock(&r->lock);
	for (unsigned int i = 0; i < r->nr_threads; i++)
		pthread_join(r->threads[i], NULL);
	free(r->threads);
	free(r->queue);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->queued);
	pthread_cond_destroy(&r->done);
	free(r);
}
