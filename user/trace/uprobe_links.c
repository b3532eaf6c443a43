// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include "uprobe_links.h"

/*
 * BPF_LINK_CREATE's uprobe_multi arguments as the kernel lays them out (union bpf_attr);
 * Debian 12's headers and libbpf 1.1 predate them.
 */
struct uprobe_multi_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t link_flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t flags;
	uint32_t pid;
	uint32_t pad;
};

#define UPROBE_MULTI_RETURN 1u

int uprobe_multi__attach(int prog_fd, const char *path, const uint64_t *offsets,
			 const uint64_t *cookies, size_t nr, pid_t pid, bool retprobe)
{
	struct uprobe_multi_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = prog_fd;
	attr.attach_type = HT_ATTACH_UPROBE_MULTI;
	attr.path = (uint64_t)(uintptr_t)path;
	attr.offsets = (uint64_t)(uintptr_t)offsets;
	attr.cookies = (uint64_t)(uintptr_t)cookies;
	attr.cnt = nr;
	attr.flags = retprobe ? UPROBE_MULTI_RETURN : 0;
	attr.pid = pid;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd >= 0 ? fd : -errno;
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
		if (order.first >= 0)
			close(order.first);
		if (order.then >= 0)
			close(order.then);
		pthread_mutex_lock(&r->lock);
		if (--r->closing == 0 && r->nr == 0)
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

void link_reaper__close(struct link_reaper *r, int first, int then)
{
	pthread_mutex_lock(&r->lock);
	if (r->nr == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct reap_order *grown = realloc(r->queue, cap * sizeof(*grown));

		if (!grown) {
			pthread_mutex_unlock(&r->lock);
			/* Slow, but never leaked. */
			if (first >= 0)
				close(first);
			if (then >= 0)
				close(then);
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
