// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Seeds for fuzz_wire: the frames of a real conversation (hello, auth, a batch of
 * processes with every kind of group, who holds the memory, the OS view and an allocator
 * API's account, an ack, a run's view), one
 * file each, as the fuzzer
 * reads them: a chunk size byte, then the frames.
 * Usage: wire_seeds DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run_wire.h"
#include "wire.h"

/* The OS view (a thread, a library, a function) and one allocator API's account. */
static void os_seeds(Heaptap__Process *p, Heaptap__Balance *bal)
{
	static uint64_t calls[] = { 3, 1, 1, 2, 4 };
	static Heaptap__MapBalance mb = HEAPTAP__MAP_BALANCE__INIT;
	static Heaptap__MapGroup thread = HEAPTAP__MAP_GROUP__INIT;
	static Heaptap__MapGroup library = HEAPTAP__MAP_GROUP__INIT;
	static Heaptap__MapGroup function = HEAPTAP__MAP_GROUP__INIT;
	static Heaptap__MapGroup *threads[] = { &thread }, *libraries[] = { &library };
	static Heaptap__MapGroup *functions[] = { &function };
	static Heaptap__Mappings m = HEAPTAP__MAPPINGS__INIT;
	static Heaptap__AllocatorApi api = HEAPTAP__ALLOCATOR_API__INIT;
	static Heaptap__AllocatorApi *apis[] = { &api };
	static Heaptap__AllocatorApis all = HEAPTAP__ALLOCATOR_APIS__INIT;

	mb.has_current = mb.has_min = mb.has_max = mb.has_anonymous = mb.has_malloc_own = true;
	mb.current = mb.max = mb.anonymous = 1 << 20;
	mb.malloc_own = 4096;
	mb.calls = calls;
	mb.n_calls = 5;
	mb.has_released_calls = mb.has_released_bytes = true;
	mb.released_calls = 2;
	mb.released_bytes = 65536;
	thread.has_tid = true;
	thread.tid = 4322;
	thread.name = "worker";
	thread.balance = &mb;
	library.library = "/usr/lib/libmpi.so.40";
	library.balance = &mb;
	function.library = "/usr/lib/libmpi.so.40";
	function.function = "MPI_Init";
	function.balance = &mb;
	m.total = &mb;
	m.threads = threads;
	m.n_threads = 1;
	m.libraries = libraries;
	m.n_libraries = 1;
	m.functions = functions;
	m.n_functions = 1;
	m.has_rss = m.has_rss_max = true;
	m.rss = 1 << 22;
	m.rss_max = 1 << 23;
	p->mappings = &m;
	api.allocator = "pool";
	api.library = "/usr/lib/libpool.so";
	api.total = bal;
	api.threads = p->threads;
	api.n_threads = p->n_threads;
	api.functions = p->functions;
	api.n_functions = p->n_functions;
	api.has_freed_unknown = true;
	api.freed_unknown = 3;
	all.apis = apis;
	all.n_apis = 1;
	p->allocators = &all;
}

/* Who holds the memory: one site outstanding, two at the peak and allocated, frees before. */
static Heaptap__Owner *owner_seed(void)
{
	static Heaptap__SiteFrame entry = HEAPTAP__SITE_FRAME__INIT;
	static Heaptap__SiteFrame caller = HEAPTAP__SITE_FRAME__INIT;
	static Heaptap__SiteFrame *frames[] = { &entry, &caller };
	static Heaptap__OwnerSite leak = HEAPTAP__OWNER_SITE__INIT;
	static Heaptap__OwnerSite burst = HEAPTAP__OWNER_SITE__INIT;
	static Heaptap__OwnerSite *outstanding[] = { &leak }, *peak[] = { &burst, &leak };
	static Heaptap__FreedBeforeTracing freed = HEAPTAP__FREED_BEFORE_TRACING__INIT;
	static Heaptap__Owner o = HEAPTAP__OWNER__INIT;

	entry.function = "malloc";
	entry.library = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	caller.function = "solver::grow";
	caller.library = "/opt/app/bin/app";
	caller.file = "solver.cc";
	caller.has_line = true;
	caller.line = 42;
	leak.n_frames = burst.n_frames = 2;
	leak.frames = burst.frames = frames;
	leak.has_blocks = leak.has_bytes = leak.has_requested = true;
	leak.blocks = 20;
	leak.bytes = 11680;
	leak.requested = 11600;
	leak.has_likely_leak = leak.has_growth_bytes_per_second = true;
	leak.likely_leak = true;
	leak.growth_bytes_per_second = 2048.5;
	burst.has_blocks = burst.has_bytes = true;
	burst.blocks = 16;
	burst.bytes = 888064;
	o.has_blocks = o.has_bytes = o.has_peak_blocks = o.has_peak_bytes = true;
	o.blocks = 20;
	o.bytes = 11680;
	o.peak_blocks = 36;
	o.peak_bytes = 899744;
	o.n_outstanding = 1;
	o.outstanding = outstanding;
	o.n_peak = 2;
	o.peak = peak;
	o.n_allocated = 2;
	o.allocated = peak;
	freed.has_calls = freed.has_bytes = freed.has_bytes_known = true;
	freed.calls = 3;
	freed.bytes = 4096;
	freed.bytes_known = true;
	o.freed_before_tracing = &freed;
	return &o;
}

static void save(const char *dir, const char *name, const wire_msg *const msgs[], int n,
		 uint8_t chunk)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputc(chunk, f);
	for (int i = 0; i < n; i++) {
		uint8_t *frame;
		size_t len;

		if (wire_encode(msgs[i], &frame, &len))
			exit(1);
		fwrite(frame, 1, len, f);
		free(frame);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	static uint8_t nonce[WIRE_NONCE_SIZE] = { 7 };
	Heaptap__Envelope hello = HEAPTAP__ENVELOPE__INIT, auth = HEAPTAP__ENVELOPE__INIT;
	Heaptap__Envelope batch = HEAPTAP__ENVELOPE__INIT, view = HEAPTAP__ENVELOPE__INIT;
	Heaptap__Hello h = HEAPTAP__HELLO__INIT;
	Heaptap__Auth a = HEAPTAP__AUTH__INIT;
	Heaptap__Batch b = HEAPTAP__BATCH__INIT;
	struct balance bal = { 100, -20, 4000, 5000, { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 } };
	struct run_view v = {};
	struct run_process *rp;
	struct arena ar = {};
	Heaptap__Process *p;

	if (argc != 2)
		return 2;
	h.has_role = h.has_agent_id = h.has_nonce = h.has_pid = true;
	h.agent_id = 0x1234;
	h.host = "node01";
	h.command = "mpirun -np 4 ./app";
	h.pid = 77;
	h.nonce.data = nonce;
	h.nonce.len = sizeof(nonce);
	h.attribution = "entry";
	hello.body_case = HEAPTAP__ENVELOPE__BODY_HELLO;
	hello.hello = &h;
	a.has_proof = true;
	a.proof.data = nonce;
	a.proof.len = sizeof(nonce);
	auth.body_case = HEAPTAP__ENVELOPE__BODY_AUTH;
	auth.auth = &a;

	rp = run_view__add(&v);
	rp->t.pid = 4321;
	rp->t.mpi.rank = 2;
	rp->t.mpi.world_size = 4;
	snprintf(rp->t.mpi.job, sizeof(rp->t.mpi.job), "4242");
	snprintf(rp->t.command, sizeof(rp->t.command), "./app --size 8");
	snprintf(rp->host, sizeof(rp->host), "node01");
	rp->t.stats.total = bal;
	accountant__set_thread(&rp->t.stats, 4322, "worker", &bal);
	accountant__set_library(&rp->t.stats, "/usr/lib/libmpi.so.40", &bal);
	accountant__set_function(&rp->t.stats, "/usr/lib/libmpi.so.40", "MPI_Init", &bal);
	view.body_case = HEAPTAP__ENVELOPE__BODY_RUN_VIEW;
	view.run_view = run_wire__encode(&ar, &v);
	p = view.run_view->processes[0];
	p->owner = owner_seed();
	os_seeds(p, p->total);
	b.has_seq = b.has_time = true;
	b.seq = 3;
	b.time = 1.7e9;
	b.n_processes = 1;
	b.processes = &p;
	batch.body_case = HEAPTAP__ENVELOPE__BODY_BATCH;
	batch.batch = &b;
	{
		const wire_msg *talk[] = { &hello, &auth, &batch }, *one[] = { &view };

		save(argv[1], "agent-whole", talk, 3, 255);
		save(argv[1], "agent-small-reads", talk, 3, 6);
		save(argv[1], "batch", talk + 2, 1, 255);
		save(argv[1], "run-view", one, 1, 255);
	}
	arena_reset(&ar);
	run_view__clear(&v);
	return 0;
}
