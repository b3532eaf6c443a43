// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "rings.h"

/* Events between ticks (and samples of the fill) while a backlog is read. */
#define TICK_EVENTS 256

struct shard {
	struct rings *r;
	unsigned idx;
	int ring_fd, hold_ring_fd;
	struct ring_buffer *rb;
	struct ring_buffer *hold_rb; /* held loader events, ahead of rb's order */
	uint64_t delivered;
	unsigned batch; /* events delivered by this rings__consume */
	int epoll_fd;	/* both rings' wake-ups, edge-triggered (rings__wait) */
	int holds_epoll_fd; /* the hold ring's wake-ups (rings__wait_holds) */
	/* The ring's positions, mapped read-only: its fill without a system call. */
	const unsigned long *consumer_pos, *producer_pos;
	uint64_t peak_fill;
};

struct rings {
	struct rings_callbacks cb;
	uint64_t ring_bytes;
	unsigned nr;
	struct shard shards[];
};

/* Bytes written to the shard's ring and not consumed yet: its positions, read in place. */
static uint64_t fill_now(const struct shard *sh)
{
	if (!sh->consumer_pos || !sh->producer_pos)
		return 0;
	return __atomic_load_n(sh->producer_pos, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(sh->consumer_pos, __ATOMIC_ACQUIRE);
}

static void note_fill(struct shard *sh)
{
	uint64_t fill = fill_now(sh);

	if (fill > sh->peak_fill)
		__atomic_store_n(&sh->peak_fill, fill, __ATOMIC_RELAXED);
}

static int deliver_hold(void *ctx, void *data, size_t size)
{
	struct shard *sh = ctx;

	return sh->r->cb.on_hold ? sh->r->cb.on_hold(sh->r->cb.ctx, sh->idx, data, size) : 0;
}

static int deliver(void *ctx, void *data, size_t size)
{
	struct shard *sh = ctx;
	int err;

	if (++sh->delivered % TICK_EVENTS == 0) {
		note_fill(sh); /* while a backlog is read: how close it came to losing events */
		sh->r->cb.tick(sh->r->cb.ctx);
	}
	err = sh->r->cb.on_event(sh->r->cb.ctx, sh->idx, data, size);
	if (err)
		return err;
	/* This one is handled: end the batch, so that its consumer's readers get a turn. */
	return ++sh->batch >= RINGS_BATCH_EVENTS ? -EAGAIN : 0;
}

/* The ring's consumer and producer positions (a page each), for its fill; best effort. */
static void map_positions(struct shard *sh)
{
	long page = sysconf(_SC_PAGESIZE);
	void *cons = mmap(NULL, page, PROT_READ, MAP_SHARED, sh->ring_fd, 0);
	void *prod = mmap(NULL, page, PROT_READ, MAP_SHARED, sh->ring_fd, page);

	sh->consumer_pos = cons == MAP_FAILED ? NULL : cons;
	sh->producer_pos = prod == MAP_FAILED ? NULL : prod;
	if (!sh->consumer_pos || !sh->producer_pos)
		log_debug("ring %u: its fill cannot be read: %s", sh->idx, strerror(errno));
}

/*
 * The shard's wake-ups: edge-triggered, so that a ring that holds events (calls do not wake
 * the consumer) does not make every wait return at once; a wake-up (a backlog, a process
 * event) does.
 */
static int watch_ring(int ring_fd)
{
	int fd = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };

	if (fd < 0)
		return -errno;
	if (epoll_ctl(fd, EPOLL_CTL_ADD, ring_fd, &ev)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int make_shard(struct rings *r, struct shard *sh, int events_fd, int holds_fd)
{
	__u32 key = sh->idx;

	sh->ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "events", 0, 0, r->ring_bytes, NULL);
	sh->hold_ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "hold_events", 0, 0, 64 << 10,
					  NULL);
	if (sh->ring_fd < 0 || sh->hold_ring_fd < 0)
		return -errno;
	if (bpf_map_update_elem(events_fd, &key, &sh->ring_fd, BPF_ANY) ||
	    bpf_map_update_elem(holds_fd, &key, &sh->hold_ring_fd, BPF_ANY))
		return -errno;
	sh->rb = ring_buffer__new(sh->ring_fd, deliver, sh, NULL);
	if (!sh->rb)
		return -errno;
	sh->hold_rb = ring_buffer__new(sh->hold_ring_fd, deliver_hold, sh, NULL);
	if (!sh->hold_rb)
		return -errno;
	map_positions(sh);
	sh->epoll_fd = watch_ring(sh->ring_fd);
	if (sh->epoll_fd < 0)
		return sh->epoll_fd;
	/* Level-triggered: a held process waits for each of these, none may stay unread. */
	sh->holds_epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (sh->holds_epoll_fd < 0 ||
	    epoll_ctl(sh->holds_epoll_fd, EPOLL_CTL_ADD, sh->hold_ring_fd,
		      &(struct epoll_event){ .events = EPOLLIN }))
		return -errno;
	return 0;
}

int rings__new(int events_fd, int holds_fd, unsigned nr, uint64_t ring_bytes,
	       const struct rings_callbacks *cb, struct rings **out)
{
	struct rings *r = calloc(1, sizeof(*r) + nr * sizeof(r->shards[0]));
	int err = 0;

	if (!r)
		return -ENOMEM;
	r->cb = *cb;
	r->ring_bytes = ring_bytes;
	r->nr = nr;
	for (unsigned i = 0; i < nr; i++) {
		r->shards[i] = (struct shard){
			.r = r, .idx = i, .ring_fd = -1, .hold_ring_fd = -1, .epoll_fd = -1,
			.holds_epoll_fd = -1,
		};
	}
	for (unsigned i = 0; i < nr && !err; i++)
		err = make_shard(r, &r->shards[i], events_fd, holds_fd);
	if (err) {
		rings__free(r);
		return err;
	}
	*out = r;
	return 0;
}

void rings__free(struct rings *r)
{
	long page = sysconf(_SC_PAGESIZE);

	if (!r)
		return;
	for (unsigned i = 0; i < r->nr; i++) {
		struct shard *sh = &r->shards[i];

		ring_buffer__free(sh->rb);
		ring_buffer__free(sh->hold_rb);
		if (sh->consumer_pos)
			munmap((void *)sh->consumer_pos, page);
		if (sh->producer_pos)
			munmap((void *)sh->producer_pos, page);
		if (sh->epoll_fd >= 0)
			close(sh->epoll_fd);
		if (sh->holds_epoll_fd >= 0)
			close(sh->holds_epoll_fd);
		if (sh->ring_fd >= 0)
			close(sh->ring_fd);
		if (sh->hold_ring_fd >= 0)
			close(sh->hold_ring_fd);
	}
	free(r);
}

int rings__wait(struct rings *r, unsigned shard, int timeout_ms)
{
	struct epoll_event ready[2];
	int n = epoll_wait(r->shards[shard].epoll_fd, ready, 2, timeout_ms);

	return n < 0 ? -errno : n;
}

int rings__consume(struct rings *r, unsigned shard)
{
	struct shard *sh = &r->shards[shard];
	int n;

	note_fill(sh);
	r->cb.tick(r->cb.ctx);
	sh->batch = 0;
	n = ring_buffer__consume(sh->rb);
	return n == -EAGAIN ? (int)sh->batch : n;
}

int rings__drain(struct rings *r)
{
	int n = 0;

	for (unsigned i = 0; i < r->nr; i++) {
		int got;

		do {
			got = rings__consume(r, i);
			if (got < 0)
				return got;
			n += got;
		} while (got >= RINGS_BATCH_EVENTS);
	}
	return n;
}

int rings__wait_holds(struct rings *r, unsigned shard, int timeout_ms)
{
	struct epoll_event ready[1];
	int n = epoll_wait(r->shards[shard].holds_epoll_fd, ready, 1, timeout_ms);

	return n < 0 ? -errno : n;
}

int rings__consume_holds(struct rings *r, unsigned shard)
{
	/* A thread that serves holds is one they wait for: it beats too. */
	r->cb.tick(r->cb.ctx);
	return ring_buffer__consume(r->shards[shard].hold_rb);
}

struct ring_fill rings__fill(const struct rings *r, unsigned shard)
{
	const struct shard *sh = &r->shards[shard];

	return (struct ring_fill){
		.bytes = r->ring_bytes,
		.now = fill_now(sh),
		.peak = __atomic_load_n(&sh->peak_fill, __ATOMIC_RELAXED),
	};
}
