// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "os_calls.h"
#include "os_move.h"
#include "procfs.h"
#include "procmaps.h"
#include "session_internal.h"

static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sample_rss(struct session *s, struct target *t, double now);

void seed_mapped_ranges(struct session *s, struct target *t)
{
	struct mapping_stats *ms = &t->mappings;
	struct procmaps maps = {};
	struct range_change ignored = {};
	char *text;
	size_t len;

	address_ranges__clear(&ms->ranges);
	ms->ranges_known = true;
	if (procfs_read(t->pid, "maps", &text, &len))
		return;
	if (procmaps__parse(text, &maps) == 0) {
		for (size_t i = 0; i < maps.nr; i++) {
			const struct mapping *m = &maps.maps[i];

			if (!strcmp(m->path, "[heap]"))
				continue;
			address_ranges__map(&ms->ranges, &(struct range_piece){
				.start = m->start,
				.end = m->end,
				.kind = m->inode ? MAP_KIND_FILE : MAP_KIND_ANON,
				.before_tracing = true,
			}, &ignored);
		}
	}
	procmaps__clear(&maps);
	free(text);
	sample_rss(s, t, monotonic_seconds()); /* the first sample: it may not live long */
}

static bool well_formed(const struct ht_os_event *ev, size_t size)
{
	if (size < HT_OS_EVENT_HEADER_SIZE || ev->call >= HT_NR_OS_CALLS)
		return false;
	if (ev->stack_id && !(ev->flags & HT_F_STACK_NEW))
		return true;
	return size >= HT_OS_EVENT_HEADER_SIZE + HT_STACK_HEADER_SIZE &&
	       ev->stack.nr <= HT_MAX_FRAMES &&
	       size >= HT_OS_EVENT_HEADER_SIZE + HT_STACK_HEADER_SIZE +
			       ev->stack.nr * sizeof(__u64);
}

/* The group a call is charged to, by the same rule as malloc's. 0 or -errno. */
static int resolve(struct target *t, const struct ht_os_event *ev, struct resolved_call *call)
{
	enum ht_func key = symbolizer_syscall_key(ev->call);
	const struct ht_stack *stack = &ev->stack;
	struct ht_stack stored;

	/* The allocator's own call is charged where the malloc-family call it served is. */
	if (ev->flags & HT_F_IN_ALLOCATOR) {
		if (ev->alloc_func >= HT_NR_FUNCS)
			return -EINVAL;
		key = ev->alloc_func;
	}
	if (ev->stack_id && symbolizer__cached(t->symbolizer, key, ev->stack_id, call))
		return 0;
	if (ev->stack_id && !(ev->flags & HT_F_STACK_NEW)) {
		/* The stacks map holds it (a malloc's id may not have reached us yet). */
		if (stored_stack(t, ev->stack_id, &stored))
			return -ENOENT;
		stack = &stored;
	}
	if (ev->flags & HT_F_IN_ALLOCATOR)
		return symbolizer__resolve(t->symbolizer, key, ev->stack_id, stack->frames,
					   stack->nr, call);
	return symbolizer__resolve_syscall(t->symbolizer, ev->call, ht_os_call_names[ev->call],
					   ev->stack_id, stack->frames, stack->nr, call);
}

void handle_os_call(struct session *s, const struct ht_os_event *ev, size_t size)
{
	struct target *t = target_of(s, ev->pid);
	static uint64_t page_size;
	struct resolved_call call;
	struct os_move move;
	char comm[HT_COMM_LEN + 1];

	if (!t || t->untraced)
		return;
	if (!well_formed(ev, size)) {
		t->lost_events++;
		return;
	}
	own_stack_id(s, t, ev->stack_id, ev->flags);
	if (!page_size)
		page_size = sysconf(_SC_PAGESIZE);
	if (!t->mappings.ranges_known)
		seed_mapped_ranges(s, t); /* late (a forked child before its exec): better than none */
	/* The ranges change whoever is charged: a later munmap must find them. */
	if (os_move_of(&t->mappings.ranges, ev, page_size, !t->symbolizer, &move)) {
		t->lost_events++;
		return;
	}
	if (!t->symbolizer)
		return; /* the loader's start, before the allocator was found: not charged */
	if (resolve(t, ev, &call)) {
		t->lost_events++;
		return;
	}
	memcpy(comm, ev->comm, HT_COMM_LEN);
	comm[HT_COMM_LEN] = '\0';
	if (mapping_stats__charge(&t->mappings, &(struct os_charge){
						       .move = &move,
						       .tid = ev->tid,
						       .thread_name = comm,
						       .library = call.library,
						       .function = call.function,
						       .frames = call.record ? call.record->frames :
									       NULL,
						       .nr_frames = call.record ? call.record->nr : 0,
						       .complete = call.complete,
					       }))
		t->lost_events++;
}

/* Resident bytes of pid: the second field of statm, in pages. */
static int read_rss(pid_t pid, uint64_t *bytes)
{
	unsigned long long size, resident;
	char *text;
	size_t len;
	int n;

	if (procfs_read(pid, "statm", &text, &len))
		return -1;
	n = sscanf(text, "%llu %llu", &size, &resident);
	free(text);
	if (n != 2)
		return -1;
	*bytes = resident * (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
}

static void sample_rss(struct session *s, struct target *t, double now)
{
	uint64_t rss;

	if (t->untraced || t->exited || read_rss(t->pid, &rss))
		return;
	if (mapping_stats__add_rss(&t->mappings, now - s->rss_started, rss))
		t->lost_events++;
}

void record_exit_rss(struct session *s, struct target *t, const struct ht_exit_event *ev)
{
	uint64_t page = sysconf(_SC_PAGESIZE), peak = ev->rss_peak_pages * page;
	double now = monotonic_seconds();

	if (!ev->rss_peak_pages)
		return; /* not read: the kernel's exit tracepoint comes after the memory is gone */
	if (mapping_stats__add_rss(&t->mappings, now - s->rss_started, ev->rss_pages * page))
		t->lost_events++;
	if (peak > t->mappings.rss_peak)
		t->mappings.rss_peak = peak;
}

/* The most pid ever had resident (VmHWM of /proc/PID/status), in bytes. */
static int read_rss_peak(pid_t pid, uint64_t *bytes)
{
	unsigned long long kb;
	char *text, *field;
	size_t len;
	int err = -1;

	if (procfs_read(pid, "status", &text, &len))
		return -1;
	field = strstr(text, "\nVmHWM:");
	if (field && sscanf(field + 7, "%llu", &kb) == 1) {
		*bytes = kb * 1024;
		err = 0;
	}
	free(text);
	return err;
}

/*
 * A new heap maximum may be a new resident peak: read VmHWM then, at most every
 * RSS_PEAK_EVERY seconds. A program that lives less than the sampling interval has its
 * peak read too (and where the kernel says it at exit, record_exit_rss has the last word);
 * one whose heap stopped growing costs nothing.
 */
#define RSS_PEAK_EVERY 0.1

static void follow_rss_peak(struct target *t, double now)
{
	uint64_t peak;

	if (t->untraced || t->exited || t->stats.total.max <= t->rss_peak_heap_max ||
	    now - t->rss_peak_read < RSS_PEAK_EVERY)
		return;
	t->rss_peak_heap_max = t->stats.total.max;
	t->rss_peak_read = now;
	if (!read_rss_peak(t->pid, &peak) && peak > t->mappings.rss_peak)
		t->mappings.rss_peak = peak;
}

void sample_rss_when_due(struct session *s, struct consumer *c)
{
	double now = monotonic_seconds();
	struct target *t, *tmp;

	HASH_ITER(hh, c->targets, t, tmp)
		follow_rss_peak(t, now);
	if (now < c->rss_next)
		return;
	HASH_ITER(hh, c->targets, t, tmp)
		sample_rss(s, t, now);
	c->rss_next += s->sample_interval;
	if (c->rss_next < now)
		c->rss_next = now + s->sample_interval;
}
