// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <uthash.h>
#include "heaptap.skel.h"
#include "guardian.h"
#include "heaptap_types.h"
#include "log.h"
#include "privilege.h"
#include "rank.h"
#include "sampling.h"
#include "tracer.h"
#include "rings.h"
#include "uprobe_links.h"

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

/* Closing links overlaps across threads: 100 processes detach in ~0.3 s with this many. */
#define REAPER_THREADS 64

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

static void heartbeat(struct tracer *t);
static void beat(struct tracer *t);


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
	heartbeat(ctx);
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
 * Holds are bounded before any probe exists: the guardian is forked while heaptap holds no
 * link, so it cannot keep a probe alive, and it ends every stop heaptap cannot.
 */
static int start_guardian(struct tracer *t)
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

/* Nobody is left to end a stop in time: stop stopping, and end what is stopped. */
static void disable_holds(struct tracer *t)
{
	if (t->holds_disabled)
		return;
	t->holds_disabled = true;
	hold_control_set(t->hold_control_fd, true, 0);
	hold_end_all(t->held_fd, 0);
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
		err = start_guardian(t);
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
		disable_holds(t);
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

static struct target_links *links_of(struct tracer *t, pid_t pid)
{
	struct target_links *tl;

	HASH_FIND_INT(t->targets, &pid, tl);
	if (tl)
		return tl;
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return NULL;
	tl->pid = pid;
	tl->allocator.fds[0] = tl->allocator.fds[1] = -1;
	tl->loader.fds[0] = tl->loader.fds[1] = -1;
	for (int i = 0; i < TRACER_MAX_CUSTOM_FILES; i++)
		tl->custom[i].fds[0] = tl->custom[i].fds[1] = -1;
	HASH_ADD_INT(t->targets, pid, tl);
	return tl;
}

/* Remove a file's probes (off the event loop). */
static void unprobe(struct tracer *t, struct probed_file *f)
{
	/* Entries go before returns, so no call is left entered but never returned. */
	if (f->fds[0] >= 0 || f->fds[1] >= 0)
		link_reaper__close(t->reaper, f->fds[0], f->fds[1]);
	f->fds[0] = f->fds[1] = -1;
	f->dev = f->inode = f->offset = 0;
}

/* Is f already probed, at this offset? Else clear it for new probes. */
static bool probed_already(struct tracer *t, struct probed_file *f, uint64_t dev, uint64_t inode,
			   uint64_t offset)
{
	if (f->fds[0] >= 0 && f->dev == dev && f->inode == inode && f->offset == offset)
		return true;
	unprobe(t, f);
	f->dev = dev;
	f->inode = inode;
	f->offset = offset;
	return false;
}

int tracer__add_target(struct tracer *t, pid_t pid, bool hold)
{
	__u32 key = pid, code_seen = 0;
	__u8 one = 1;

	if (!links_of(t, pid))
		return -ENOMEM;
	if (bpf_map__update_elem(t->skel->maps.targets, &key, sizeof(key), &one, sizeof(one),
				 BPF_ANY))
		return -errno;
	if (hold && bpf_map__update_elem(t->skel->maps.hold, &key, sizeof(key), &code_seen,
					 sizeof(code_seen), BPF_ANY))
		return -errno;
	return 0;
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

	if (bpf_map_lookup_elem(t->held_fd, &key, &h) || (since_ns && h.since_ns != since_ns) ||
	    !hold_end(t->held_fd, pid))
		return;
	t->holds.nr++;
	t->holds.total_ns += monotonic_ns() - h.since_ns;
	if (monotonic_ns() - h.since_ns > t->holds.longest_ns)
		t->holds.longest_ns = monotonic_ns() - h.since_ns;
}

struct tracer_holds tracer__holds(const struct tracer *t)
{
	return t->holds;
}

static int attach(pid_t pid, struct bpf_program *prog, bool retprobe, const char *path,
		  const uint64_t *offsets, const uint64_t *cookies, size_t nr)
{
	int fd = uprobe_multi__attach(bpf_program__fd(prog), path, offsets, cookies, nr, pid,
				      retprobe);

	if (fd < 0)
		log_debug("pid %d: cannot probe %s: %s", pid, path, strerror(-fd));
	return fd;
}

int tracer__attach_loader(struct tracer *t, pid_t pid, const char *path, uint64_t offset)
{
	struct target_links *tl = links_of(t, pid);
	uint64_t cookie = 0;
	struct stat st;
	int fd;

	if (!tl)
		return -ENOMEM;
	if (stat(path, &st))
		return -errno;
	if (probed_already(t, &tl->loader, st.st_dev, st.st_ino, offset))
		return 0;
	fd = attach(pid, t->skel->progs.loader_changed, false, path, &offset, &cookie, 1);
	if (fd < 0)
		return fd;
	tl->loader.fds[0] = fd;
	return 0;
}

int tracer__attach_allocator(struct tracer *t, pid_t pid, const struct allocator *alloc)
{
	uint64_t entries[HT_NR_FUNCS], entry_funcs[HT_NR_FUNCS];
	uint64_t returns[HT_NR_FUNCS], return_funcs[HT_NR_FUNCS];
	struct target_links *tl = links_of(t, pid);
	size_t nr_entries = 0, nr_returns = 0;
	uint64_t free_site = 0, free_cookie = 0;
	int fd;

	if (!tl)
		return -ENOMEM;
	if (probed_already(t, &tl->allocator, alloc->dev, alloc->inode, 0))
		return 0;
	for (int f = 0; f < HT_NR_FUNCS; f++) {
		uint64_t cookie = HT_COOKIE(f | (alloc->pages_readable ? HT_COOKIE_MIMALLOC : 0),
					    alloc->sites[f] - alloc->offsets[f]);

		if (!alloc->offsets[f] || allocator__is_alias(alloc, f))
			continue;
		/* With session uprobes, free has a program and a link of its own (alloc.bpf.c). */
		if (t->session_uprobes && f == HT_FREE) {
			free_site = alloc->sites[f];
			free_cookie = cookie;
			continue;
		}
		/*
		 * Both probes on the site: the return address is still at [rsp] there. The
		 * cookie tells the entry program how far past the entry it sits.
		 */
		entries[nr_entries] = alloc->sites[f];
		entry_funcs[nr_entries++] = cookie;
		/* free reports at its entry; it has nothing to return. */
		if (f != HT_FREE) {
			returns[nr_returns] = alloc->sites[f];
			return_funcs[nr_returns++] = cookie;
		}
	}
	if (nr_entries == 0)
		return -ENOENT;
	if (t->session_uprobes) {
		/* One link: each entry says whether its return runs; and free's. */
		fd = sampling__attach_session(bpf_program__fd(t->skel->progs.alloc_session),
					      alloc->open_path, entries, entry_funcs, nr_entries,
					      pid);
		if (fd < 0)
			return fd;
		tl->allocator.fds[0] = fd;
		if (!free_site)
			return 0;
		fd = attach(pid, t->skel->progs.sampled_free, false, alloc->open_path, &free_site,
			    &free_cookie, 1);
		if (fd < 0) {
			unprobe(t, &tl->allocator);
			return fd;
		}
		tl->allocator.fds[1] = fd;
		return 0;
	}
	/*
	 * Returns first: the process runs while its probes come in, and an entry seen without
	 * its return would leave the thread's depth above zero and hide all its later calls.
	 * A return seen without its entry is ignored.
	 */
	if (nr_returns) {
		fd = attach(pid, t->skel->progs.alloc_return, true, alloc->open_path, returns,
			    return_funcs, nr_returns);
		if (fd < 0)
			return fd;
		tl->allocator.fds[1] = fd;
	}
	fd = attach(pid, t->skel->progs.alloc_entry, false, alloc->open_path, entries,
		    entry_funcs, nr_entries);
	if (fd < 0) {
		unprobe(t, &tl->allocator);
		return fd;
	}
	tl->allocator.fds[0] = fd;
	return 0;
}

int tracer__attach_custom(struct tracer *t, pid_t pid, const char *path, uint64_t dev,
			  uint64_t inode, const uint64_t *offsets, const uint64_t *cookies,
			  size_t nr)
{
	struct target_links *tl = links_of(t, pid);
	uint64_t returns[nr ? nr : 1], return_cookies[nr ? nr : 1];
	struct probed_file *f = NULL;
	size_t nr_returns = 0;
	int fd;

	if (!tl)
		return -ENOMEM;
	for (int i = 0; i < TRACER_MAX_CUSTOM_FILES; i++) {
		struct probed_file *c = &tl->custom[i];

		if (c->fds[0] >= 0 && c->dev == dev && c->inode == inode)
			return 0;
		if (c->fds[0] < 0 && !f)
			f = c;
	}
	if (!f)
		return -E2BIG;
	probed_already(t, f, dev, inode, 0);
	for (size_t i = 0; i < nr; i++) {
		if (HT_CUSTOM_COOKIE_AT_ENTRY(cookies[i]))
			continue;
		returns[nr_returns] = offsets[i];
		return_cookies[nr_returns++] = cookies[i];
	}
	/* Returns first, as for the malloc family. */
	if (nr_returns) {
		fd = attach(pid, t->skel->progs.custom_return, true, path, returns,
			    return_cookies, nr_returns);
		if (fd < 0)
			return fd;
		f->fds[1] = fd;
	}
	fd = attach(pid, t->skel->progs.custom_entry, false, path, offsets, cookies, nr);
	if (fd < 0) {
		unprobe(t, f);
		return fd;
	}
	f->fds[0] = fd;
	return 0;
}

void tracer__follow_launchers(struct tracer *t)
{
	t->skel->bss->follow_launchers = true;
}

void tracer__stop_calls(struct tracer *t)
{
	t->skel->bss->tracing_stopped = true;
}

void tracer__detach(struct tracer *t, pid_t pid)
{
	struct target_links *tl;

	HASH_FIND_INT(t->targets, &pid, tl);
	if (!tl)
		return;
	unprobe(t, &tl->allocator);
	unprobe(t, &tl->loader);
	for (int i = 0; i < TRACER_MAX_CUSTOM_FILES; i++)
		unprobe(t, &tl->custom[i]);
	HASH_DEL(t->targets, tl);
	free(tl);
}

/*
 * Beats this far apart at most: a beat is a map update, and checking the guardian a
 * wait4(); the BPF side lets stops go on for half the guardian's bound after one.
 */
#define HEARTBEAT_NS (10 * 1000000ull)

/* heaptap is reading its events: stops may go on. Unless its guardian died. */
static void heartbeat(struct tracer *t)
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

static void beat(struct tracer *t)
{
	if (t->holds_disabled)
		return;
	if (!guardian__alive(t->guardian)) {
		log_error("the guardian process exited: processes are no longer held at exec and "
			  "loader events (their first stacks may be cut)");
		disable_holds(t);
		return;
	}
	hold_control_set(t->hold_control_fd, false, monotonic_ns());
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

int tracer__wait_holds(struct tracer *t, int timeout_ms)
{
	return rings__wait_holds(t->rings, timeout_ms);
}

int tracer__consume_holds(struct tracer *t)
{
	return rings__consume_holds(t->rings);
}

bool tracer__held(struct tracer *t, pid_t pid, uint64_t since_ns)
{
	struct ht_hold h;
	__u32 key = pid;

	return !bpf_map_lookup_elem(t->held_fd, &key, &h) && h.since_ns == since_ns;
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
