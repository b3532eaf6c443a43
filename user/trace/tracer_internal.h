/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The tracer's parts, one job a file: tracer.c loads the BPF side and reads its rings;
 * tracer_probes.c places and removes each process's probes; tracer_holds.c keeps the stops
 * at exec and loader events bounded (the guardian, the heartbeat) and ends them.
 */
#ifndef HEAPTAP_TRACER_INTERNAL_H
#define HEAPTAP_TRACER_INTERNAL_H

#include <pthread.h>
#include <uthash.h>
#include "heaptap.skel.h"
#include "guardian.h"
#include "rings.h"
#include "tracer.h"

/*
 * Probes placed in one process, by the file they probe. A link stays across an exec: its
 * probes fire in whatever program the process runs that maps the same file, so an exec
 * into a program with the same libc and loader keeps them, and no second set is ever
 * placed beside them (two sets would report each call twice, and a call whose entry one
 * set saw and whose return the other missed would leave its thread's depth unbalanced).
 */
struct probed_file {
	uint64_t dev, inode;
	uint64_t offset; /* the loader's hook; 0 for the allocator */
	int fds[2]; /* entries and returns (sessions: theirs, free's), or the hook; -1: none */
};

struct target_links {
	pid_t pid;
	struct probed_file allocator, loader;
	struct probed_file custom[TRACER_MAX_CUSTOM_FILES]; /* --allocator APIs' files */
	UT_hash_handle hh;
};

struct tracer {
	struct heaptap_bpf *skel;
	struct rings *rings;
	unsigned nr_shards;
	uint64_t ring_bytes;
	pthread_mutex_t heartbeat_lock; /* consumers beat in turn */
	uint64_t last_beat_ns;
	struct target_links *targets;
	struct link_reaper *reaper;
	struct guardian *guardian;
	int held_fd, hold_control_fd;
	bool holds_disabled;
	bool session_uprobes; /* the allocator's probes are session uprobes (sampling.h) */
	struct tracer_holds holds;
	tracer_event_fn on_event, on_hold;
	void *ctx;
};

/* tracer_holds.c: the guardian started over the hold maps, before any probe. 0 or -errno. */
int tracer_start_guardian(struct tracer *t);
/* Nobody is left to end a stop in time: stop stopping, and end what is stopped. */
void tracer_disable_holds(struct tracer *t);
/* heaptap is reading its events: stops may go on (a beat at most every 10 ms). */
void tracer_heartbeat(struct tracer *t);

#endif
