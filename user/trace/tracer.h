/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * heaptap's BPF side seen from userspace: load the programs, place probes per process,
 * and deliver the ordered event stream. Nothing here interprets an event.
 */
#ifndef HEAPTAP_TRACER_H
#define HEAPTAP_TRACER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "allocator.h"
#include "heaptap_types.h"
#include "rings.h"
#include "sampling.h"

struct tracer;

/*
 * Called for every event of a shard, in its ring's order, on the thread that consumes the
 * shard; a non-zero return stops the consume.
 */
typedef int (*tracer_event_fn)(void *ctx, unsigned shard, const void *data, size_t size);

/* Bytes of each shard's ring by default: a rank's MPI_Init burst, several ranks a shard. */
#define TRACER_RING_BYTES (32ull << 20)

struct tracer_options {
	unsigned nr_shards;  /* rings, one per consumer (ht_shard_of); 0: one */
	uint64_t ring_bytes; /* each ring's size, a power of two pages; 0: the default */
	bool follow_children; /* processes that targets start become targets */
	bool custom_apis;     /* --allocator APIs will be probed (tracer__attach_custom) */
	uint32_t unwind_rows; /* rows the unwind row map holds */
	uint64_t sample_bytes; /* --sample-bytes R (0: every call) */
};

/*
 * Load and verify the programs (those of --allocator APIs only when asked: they cost the
 * verifier a third of the load). 0 or -errno (-EPERM: not privileged enough).
 */
int tracer__new(tracer_event_fn on_event, void *ctx, const struct tracer_options *opts,
		struct tracer **out);
void tracer__free(struct tracer *t);

/* Trace pid: report its exits, and with hold, stop it at its exec and loader events. */
int tracer__add_target(struct tracer *t, pid_t pid, bool hold);
/*
 * The same with hold for the command heaptap started (its child, waiting to exec): held
 * even if it is an MPI launcher (HT_HOLD_EVEN_LAUNCHER), until tracer__release_hold().
 */
int tracer__add_command(struct tracer *t, pid_t pid);
/* Stop holding pid at its exec and loader events. */
int tracer__release_hold(struct tracer *t, pid_t pid);
/*
 * Let pid run on if it is stopped by heaptap (once: its guardian may have done it); with
 * since_ns, only the stop made then (ht_hold.since_ns), not a later one.
 */
void tracer__resume(struct tracer *t, pid_t pid, uint64_t since_ns);
/*
 * Called with each held loader event (an ht_libs_event) as soon as it is read
 * (tracer__consume_holds), ahead of the ordered stream, where the same event comes again
 * in its place.
 */
void tracer__on_holds(struct tracer *t, tracer_event_fn on_hold);

/* The stops heaptap ended itself, and how long they lasted. */
struct tracer_holds {
	uint64_t nr;
	uint64_t total_ns;
	uint64_t longest_ns;
};
struct tracer_holds tracer__holds(const struct tracer *t);

/*
 * Probes belong to the process, by file: after an exec they fire in the new program if it
 * maps the same file, and probing the same file again is a no-op. Probing another file
 * replaces them.
 */
/* Probe the loader's _dl_debug_state (at file offset) in pid. */
int tracer__attach_loader(struct tracer *t, pid_t pid, const char *path, uint64_t offset);
/* Probe every entry point of the allocator in pid, once per distinct address. */
int tracer__attach_allocator(struct tracer *t, pid_t pid, const struct allocator *alloc);
/* Files of --allocator APIs probed per process, at most. */
#define TRACER_MAX_CUSTOM_FILES 8
/*
 * Probe offsets[0..nr) of the file at path (dev, inode) in pid for an --allocator API, each
 * with its HT_CUSTOM_COOKIE. Once per file; 0 or -errno (-E2BIG: too many files).
 */
int tracer__attach_custom(struct tracer *t, pid_t pid, const char *path, uint64_t dev,
			  uint64_t inode, const uint64_t *offsets, const uint64_t *cookies,
			  size_t nr);
/* Follow every MPI launcher that starts, from its exec (launchers are never stopped). */
void tracer__follow_launchers(struct tracer *t);
/* Stop reporting calls at once, before the (slow) removal of the probes. */
void tracer__stop_calls(struct tracer *t);
/* Remove every probe placed for pid. */
void tracer__detach(struct tracer *t, pid_t pid);

/* The shards: events of a process go to shard ht_shard_of(pid, tracer__shards()). */
unsigned tracer__shards(const struct tracer *t);
/*
 * Wait up to timeout_ms for the shard's rings to wake their consumer: a backlog of calls,
 * a process event, a held loader event (calls alone do not wake it). >= 0, or -errno.
 */
int tracer__wait(struct tracer *t, unsigned shard, int timeout_ms);
/* Events delivered by one tracer__consume at most. */
#define TRACER_BATCH_EVENTS RINGS_BATCH_EVENTS
/*
 * Deliver what the shard's ring holds now, up to TRACER_BATCH_EVENTS, without waiting (its
 * held loader events first). One thread at a time per shard. Events delivered, or -errno.
 */
int tracer__consume(struct tracer *t, unsigned shard);
/* Deliver whatever every ring holds (once nothing else consumes them). */
int tracer__drain(struct tracer *t);
/*
 * A shard's held loader events (tracer__on_holds), on one thread of their own: wait up to
 * timeout_ms for any, deliver every one queued. >= 0, or -errno.
 */
int tracer__wait_holds(struct tracer *t, unsigned shard, int timeout_ms);
int tracer__consume_holds(struct tracer *t, unsigned shard);
/* Is pid still stopped by the stop made at since_ns (not let go since)? */
bool tracer__held(struct tracer *t, pid_t pid, uint64_t since_ns);
/* A shard's ring: its size, its fill now, and the most it held while it was read. */
struct ring_fill tracer__ring_fill(const struct tracer *t, unsigned shard);

/* The unwind maps (see unwind_maps.h): the row array, its capacity, pid -> mappings. */
void tracer__unwind_maps(struct tracer *t, int *rows_fd, uint32_t *capacity,
			 int *processes_fd);

/* The map of stacks that call events name by id (see stack_ids.h), and its entries. */
int tracer__stacks_fd(struct tracer *t);
uint32_t tracer__stacks_capacity(const struct tracer *t);
/*
 * Any process's unwind tables or stack ids changed: the BPF side's cached stacks are no
 * longer to be trusted (bpf/stack_cache.bpf.h). Call after the change.
 */
void tracer__stacks_changed(struct tracer *t);
/* The calls whose stack came from the cache, and those whose stack was walked. */
void tracer__stack_cache_stats(struct tracer *t, uint64_t *hits, uint64_t *walks);

/* What the kernel lost or skipped for pid so far (zeros if nothing). */
void tracer__losses(struct tracer *t, pid_t pid, struct ht_losses *out);
/* --sample-bytes, once stopped: the live threads' exact calls (sampling.h). 0 or -errno. */
int tracer__thread_calls(struct tracer *t, thread_calls_fn fn, void *ctx);
/* An ended sampled process's blocks at addrs out of the BPF side (sampling__forget_blocks). */
size_t tracer__forget_sampled(struct tracer *t, pid_t pid, const uint64_t *addrs, size_t nr);
/* The same, once pid has ended: read and forgotten. */
void tracer__take_losses(struct tracer *t, pid_t pid, struct ht_losses *out);

#endif
