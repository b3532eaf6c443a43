// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The tracer: the BPF side loaded, its tracepoints attached and its maps set up, and the
 * rings read into the session's callbacks (tracer_internal.h names the other parts).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "heaptap_types.h"
#include "log.h"
#include "privilege.h"
#include "rank.h"
#include "sampling.h"
#include "tracer_internal.h"
#include "uprobe_links.h"

/* Closing links overlaps across threads: 100 processes detach in ~0.3 s with this many. */
#define REAPER_THREADS 64

static int deliver(void *ctx, unsigned shard, const void *data, size_t size)
{
	struct tracer *t = ctx;

	return t->on_event(t->ctx, shard, data, size);
}

static int deliver_hold(void *ctx, unsigned shard, const void *data, size_t size)
{
	struct tracer *t = ctx;

	return t->on_hold ? t->on_hold(t->ctx, shard, data, size) : 0;
}

/* heaptap is reading its events (a backlog, maybe): it is busy, not stalled. */
static void tick(void *ctx)
{
	tracer_heartbeat(ctx);
}

/* Launchers are known from the start: they are never stopped (they relay SIGCONT). */
static int know_launchers(struct tracer *t)
{
	for (size_t i = 0; i < nr_mpi_launcher_names; i++) {
		char comm[16] = {};
		__u8 one = 1;

		strncpy(comm, mpi_launcher_names[i], sizeof(comm) - 1);
		if (bpf_map__update_elem(t->skel->maps.launchers, comm, sizeof(comm), &one,
					 sizeof(one), BPF_ANY))
			return -errno;
	}
	return 0;
}



/*
 * heaptap -v: what loading took, and each program's work for the verifier (the
 * instructions it processed; every kernel refuses a program past 1,000,000, and older
 * verifiers may need more for the same program: the margin says how far it is).
 */
static void log_load(struct heaptap_bpf *skel, uint64_t started_ns)
{
	struct bpf_program *prog;

	log_debug("BPF programs loaded in %.0f ms", (monotonic_ns() - started_ns) / 1e6);
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(prog) >= 0 &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			log_debug("program %s: %u instructions verified", bpf_program__name(prog),
				  info.verified_insns);
	}
}

/*
 * Does oom:mark_victim give the victim's task_struct (task, uid), as the kernel's BTF
 * says? Older kernels gave only a pid (a thread's, any of the victim's), or lack the
 * tracepoint: oom_victim is then not loaded, as the verifier would refuse it, and an OOM
 * kill shows as its signal only.
 */
static bool oom_tracepoint_takes_task(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_param *params;
	bool takes = false;
	int id;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "btf_trace_mark_victim", BTF_KIND_TYPEDEF);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	t = t ? btf__type_by_id(btf, t->type) : NULL; /* the pointer to the prototype */
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
	if (t && btf_is_func_proto(t) && btf_vlen(t) >= 2) {
		params = btf_params(t); /* [0] is the tracepoint's void *data */
		t = btf__type_by_id(btf, params[1].type);
		t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
		takes = t && btf_is_struct(t) &&
			!strcmp(btf__name_by_offset(btf, t->name_off), "task_struct");
	}
	btf__free(btf);
	return takes;
}

int tracer__new(tracer_event_fn on_event, void *ctx, const struct tracer_options *opts,
		struct tracer **out)
{
	struct tracer *t = calloc(1, sizeof(*t));
	uint64_t started_ns = monotonic_ns();
	bool oom_seen;
	unsigned int uprobe_type = uprobe_links__attach_type();
	int err;

	if (!t)
		return -ENOMEM;
	t->on_event = on_event;
	t->ctx = ctx;
	pthread_mutex_init(&t->heartbeat_lock, NULL);
	t->nr_shards = opts->nr_shards ? opts->nr_shards : 1;
	if (t->nr_shards > HT_MAX_SHARDS)
		t->nr_shards = HT_MAX_SHARDS;
	t->ring_bytes = opts->ring_bytes ? opts->ring_bytes : TRACER_RING_BYTES;
	/* It may wait for a heaptap that just exited: before holds have a heartbeat to miss. */
	uprobe_links__prepare();

	t->skel = heaptap_bpf__open();
	if (!t->skel) {
		err = -errno;
		goto cleanup;
	}
	t->skel->rodata->follow_children = opts->follow_children;
	t->skel->rodata->nr_shards = t->nr_shards;
	/* Preallocated kernel memory: the total unwind table budget (--table-budget). */
	bpf_map__set_max_entries(t->skel->maps.unwind_rows, opts->unwind_rows);
	/* A test hook: few hash bits make stacks collide, which must not merge them. */
	if (getenv("HEAPTAP_STACK_HASH_BITS"))
		t->skel->rodata->stack_hash_bits = atoi(getenv("HEAPTAP_STACK_HASH_BITS"));
	/* Every uprobe goes through uprobe_multi links where the kernel has them. */
	bpf_program__set_expected_attach_type(t->skel->progs.alloc_entry, uprobe_type);
	bpf_program__set_expected_attach_type(t->skel->progs.alloc_return, uprobe_type);
	bpf_program__set_expected_attach_type(t->skel->progs.sampled_free, uprobe_type);
	bpf_program__set_expected_attach_type(t->skel->progs.loader_changed, uprobe_type);
	bpf_program__set_expected_attach_type(t->skel->progs.custom_entry, uprobe_type);
	bpf_program__set_expected_attach_type(t->skel->progs.custom_return, uprobe_type);
	t->session_uprobes = sampling__configure(t->skel, opts->sample_bytes);
	bpf_program__set_autoload(t->skel->progs.custom_entry, opts->custom_apis);
	bpf_program__set_autoload(t->skel->progs.custom_return, opts->custom_apis);
	oom_seen = oom_tracepoint_takes_task();
	bpf_program__set_autoload(t->skel->progs.oom_victim, oom_seen);
	if (!oom_seen)
		log_debug("no oom:mark_victim tracepoint that gives the victim's task: OOM kills "
			  "are reported as their signal only");
	err = heaptap_bpf__load(t->skel);
	if (err)
		goto cleanup;
	log_load(t->skel, started_ns);
	if (!privilege_unrestricted()) {
		t->skel->data->own_uid = getuid();
		t->skel->data->own_gid = getgid();
	}
	err = know_launchers(t);
	if (!err)
		err = tracer_start_guardian(t);
	if (err)
		goto cleanup;
	t->reaper = link_reaper__new(REAPER_THREADS);
	if (!t->reaper) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* Before the tracepoints: no event finds its ring missing. */
	err = rings__new(bpf_map__fd(t->skel->maps.event_rings),
			 bpf_map__fd(t->skel->maps.hold_rings), t->nr_shards, t->ring_bytes,
			 &(struct rings_callbacks){ deliver, deliver_hold, tick, t }, &t->rings);
	if (err)
		goto cleanup;
	err = heaptap_bpf__attach(t->skel); /* the tracepoints; uprobes go per process */
	if (err)
		goto cleanup;
	*out = t;
	return 0;
cleanup:
	tracer__free(t);
	return err;
}

void tracer__free(struct tracer *t)
{
	struct target_links *tl, *tmp;

	if (!t)
		return;
	if (t->guardian)
		tracer_disable_holds(t);
	HASH_ITER(hh, t->targets, tl, tmp)
		tracer__detach(t, tl->pid);
	link_reaper__free(t->reaper); /* waits until every probe is gone */
	uprobe_links__release();
	guardian__free(t->guardian);
	rings__free(t->rings);
	heaptap_bpf__destroy(t->skel);
	pthread_mutex_destroy(&t->heartbeat_lock);
	free(t);
}













void tracer__follow_launchers(struct tracer *t)
{
	t->skel->bss->follow_launchers = true;
}

void tracer__stop_calls(struct tracer *t)
{
	t->skel->bss->tracing_stopped = true;
}





unsigned tracer__shards(const struct tracer *t)
{
	return t->nr_shards;
}

int tracer__wait(struct tracer *t, unsigned shard, int timeout_ms)
{
	return rings__wait(t->rings, shard, timeout_ms);
}

int tracer__consume(struct tracer *t, unsigned shard)
{
	return rings__consume(t->rings, shard);
}

int tracer__drain(struct tracer *t)
{
	return rings__drain(t->rings);
}




struct ring_fill tracer__ring_fill(const struct tracer *t, unsigned shard)
{
	return rings__fill(t->rings, shard);
}

void tracer__unwind_maps(struct tracer *t, int *rows_fd, uint32_t *capacity,
			 int *processes_fd)
{
	*rows_fd = bpf_map__fd(t->skel->maps.unwind_rows);
	*capacity = bpf_map__max_entries(t->skel->maps.unwind_rows);
	*processes_fd = bpf_map__fd(t->skel->maps.unwind_processes);
}

uint32_t tracer__stacks_capacity(const struct tracer *t)
{
	return bpf_map__max_entries(t->skel->maps.stacks);
}

int tracer__stacks_fd(struct tracer *t)
{
	return bpf_map__fd(t->skel->maps.stacks);
}

void tracer__stacks_changed(struct tracer *t)
{
	__atomic_add_fetch(&t->skel->bss->stack_cache_generation, 1, __ATOMIC_RELEASE);
}

void tracer__stack_cache_stats(struct tracer *t, uint64_t *hits, uint64_t *walks)
{
	int cpus = libbpf_num_possible_cpus();
	__u64 *values = cpus > 0 ? calloc(cpus, sizeof(*values)) : NULL;
	__u32 which[] = { 0, 1 };
	uint64_t *out[] = { hits, walks };

	*hits = *walks = 0;
	for (int i = 0; values && i < 2; i++) {
		if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.stack_cache_stats), &which[i],
					values))
			continue;
		for (int cpu = 0; cpu < cpus; cpu++)
			*out[i] += values[cpu];
	}
	free(values);
}

int tracer__thread_calls(struct tracer *t, thread_calls_fn fn, void *ctx)
{
	return sampling__thread_calls(t->skel, fn, ctx);
}

size_t tracer__forget_sampled(struct tracer *t, pid_t pid, const uint64_t *addrs, size_t nr)
{
	return sampling__forget_blocks(t->skel, pid, addrs, nr);
}

void tracer__losses(struct tracer *t, pid_t pid, struct ht_losses *out)
{
	__u32 key = pid;

	memset(out, 0, sizeof(*out));
	bpf_map__lookup_elem(t->skel->maps.losses, &key, sizeof(key), out, sizeof(*out), 0);
}

void tracer__take_losses(struct tracer *t, pid_t pid, struct ht_losses *out)
{
	__u32 key = pid;

	tracer__losses(t, pid, out);
	bpf_map__delete_elem(t->skel->maps.losses, &key, sizeof(key), 0);
	if (out->ringbuf_full || out->inflight_full || out->holds_skipped)
		log_debug("pid %d: lost in the kernel %llu with the ring buffer full, %llu without "
			  "a per-thread slot; %llu holds skipped", pid,
			  (unsigned long long)out->ringbuf_full,
			  (unsigned long long)out->inflight_full,
			  (unsigned long long)out->holds_skipped);
}
