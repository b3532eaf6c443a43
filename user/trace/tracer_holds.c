// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Stops at exec and loader events: the guardian that bounds them, the heartbeat that lets
 * them go on while heaptap reads its events, and their ends, timed (tracer_internal.h).
 */
#include <errno.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "tracer_internal.h"

/*
 * Beats this far apart at most: a beat is a map update, and checking the guardian a
 * wait4(); the BPF side lets stops go on for half the guardian's bound after one.
 */
#define HEARTBEAT_NS (10 * 1000000ull)

/*
 * Holds are bounded before any probe exists: the guardian is forked while heaptap holds no
 * link, so it cannot keep a probe alive, and it ends every stop heaptap cannot.
 */
int tracer_start_guardian(struct tracer *t)
{
	struct ht_hold_control control = {
		.heartbeat_ns = monotonic_ns(),
		.bound_ns = hold_bound_ns(),
	};
	__u32 zero = 0;

	t->held_fd = bpf_map__fd(t->skel->maps.held);
	t->hold_control_fd = bpf_map__fd(t->skel->maps.hold_control);
	if (bpf_map_update_elem(t->hold_control_fd, &zero, &control, BPF_ANY))
		return -errno;
	return guardian__start(t->held_fd, t->hold_control_fd, &t->guardian);
}

void tracer_disable_holds(struct tracer *t)
{
	if (t->holds_disabled)
		return;
	t->holds_disabled = true;
	hold_control_set(t->hold_control_fd, true, 0);
	hold_end_all(t->held_fd, 0);
}

static void beat(struct tracer *t)
{
	if (t->holds_disabled)
		return;
	if (!guardian__alive(t->guardian)) {
		log_error("the guardian process exited: processes are no longer held at exec and "
			  "loader events (their first stacks may be cut)");
		tracer_disable_holds(t);
		return;
	}
	hold_control_set(t->hold_control_fd, false, monotonic_ns());
}

/* heaptap is reading its events: stops may go on. Unless its guardian died. */
void tracer_heartbeat(struct tracer *t)
{
	uint64_t now = monotonic_ns();

	if (t->holds_disabled || now - __atomic_load_n(&t->last_beat_ns, __ATOMIC_RELAXED) <
					 HEARTBEAT_NS)
		return;
	if (pthread_mutex_trylock(&t->heartbeat_lock))
		return; /* another consumer beats now */
	__atomic_store_n(&t->last_beat_ns, now, __ATOMIC_RELAXED);
	beat(t);
	pthread_mutex_unlock(&t->heartbeat_lock);
}


int tracer__release_hold(struct tracer *t, pid_t pid)
{
	__u32 key = pid;

	if (bpf_map__delete_elem(t->skel->maps.hold, &key, sizeof(key), 0) && errno != ENOENT)
		return -errno;
	return 0;
}

void tracer__on_holds(struct tracer *t, tracer_event_fn on_hold)
{
	t->on_hold = on_hold;
}

void tracer__resume(struct tracer *t, pid_t pid, uint64_t since_ns)
{
	struct ht_hold h;
	__u32 key = pid;
	uint64_t held_ns;

	/* Its start, for the time it was held; hold_end() tells the stop made then apart. */
	if (bpf_map_lookup_elem(t->held_fd, &key, &h) ||
	    !hold_end(t->held_fd, pid, since_ns ? since_ns : h.since_ns))
		return;
	held_ns = monotonic_ns() - h.since_ns;
	t->holds.nr++;
	t->holds.total_ns += held_ns;
	if (held_ns > t->holds.longest_ns)
		t->holds.longest_ns = held_ns;
}

struct tracer_holds tracer__holds(const struct tracer *t)
{
	return t->holds;
}

int tracer__wait_holds(struct tracer *t, unsigned shard, int timeout_ms)
{
	return rings__wait_holds(t->rings, shard, timeout_ms);
}

int tracer__consume_holds(struct tracer *t, unsigned shard)
{
	return rings__consume_holds(t->rings, shard);
}

bool tracer__held(struct tracer *t, pid_t pid, uint64_t since_ns)
{
	struct ht_hold h;
	__u32 key = pid;

	return !bpf_map_lookup_elem(t->held_fd, &key, &h) && h.since_ns == since_ns;
}
