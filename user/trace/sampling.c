// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "heaptap.skel.h"
#include "log.h"
#include "sample_weights.h"
#include "sampling.h"
#include "kernel_features.h"
#include "uprobe_links.h"

bool sampling__configure(struct heaptap_bpf *skel, uint64_t sample_bytes)
{
	/* Exact mode keeps its entry and return programs: every call's return is needed. */
	bool session = sample_bytes && kernel_has(KF_UPROBE_SESSION) > 0 &&
		       kernel_has(KF_UPROBE_MULTI) > 0 && !getenv("HEAPTAP_NO_SESSION_UPROBES");

	skel->rodata->sample_bytes = sample_bytes;
	for (uint32_t b = 0; sample_bytes && b < HT_SAMPLE_BUCKETS; b++)
		skel->rodata->sample_threshold[b] = sample_threshold(sample_bytes, b);
	bpf_program__set_expected_attach_type(skel->progs.alloc_session, HT_ATTACH_UPROBE_SESSION);
	bpf_program__set_autoload(skel->progs.alloc_session, session);
	bpf_program__set_autoload(skel->progs.sampled_free, session);
	/* Every task switch of the machine: in sampled mode only (exact per-thread calls). */
	bpf_program__set_autoload(skel->progs.calls_switch, sample_bytes != 0);
	bpf_program__set_autoload(skel->progs.alloc_entry, !session);
	bpf_program__set_autoload(skel->progs.alloc_return, !session);
	if (sample_bytes)
		log_debug("--sample-bytes %llu: %s", (unsigned long long)sample_bytes,
			  session ? "session uprobes (an unsampled call skips its return trap)" :
				    "no session uprobes (an unsampled call's return program exits "
				    "at once)");
	return session;
}

/* BPF_LINK_CREATE's uprobe_multi arguments (uprobe_links.c), with the session's type. */
struct session_attr {
	uint32_t prog_fd, target_fd, attach_type, link_flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, flags, pid, pad;
};

int sampling__attach_session(int prog_fd, const char *path, const uint64_t *offsets,
			     const uint64_t *cookies, size_t nr, pid_t pid)
{
	struct session_attr attr = {
		.prog_fd = prog_fd,
		.attach_type = HT_ATTACH_UPROBE_SESSION,
		.path = (uint64_t)(uintptr_t)path,
		.offsets = (uint64_t)(uintptr_t)offsets,
		.cookies = (uint64_t)(uintptr_t)cookies,
		.cnt = nr,
		.pid = pid,
	};
	int fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));

	return fd >= 0 ? fd : -errno;
}

size_t sampling__forget_blocks(struct heaptap_bpf *skel, pid_t pid, const uint64_t *addrs,
			       size_t nr)
{
	int fd = bpf_map__fd(skel->maps.sampled_blocks);
	size_t forgotten = 0;

	for (size_t i = 0; i < nr; i++) {
		struct ht_sampled_key key = { .pid = (__u32)pid, .ptr = addrs[i] };

		if (bpf_map_delete_elem(fd, &key))
			continue; /* never kept there (its table was full) */
		__atomic_fetch_sub(&skel->bss->sampled_filter[ht_sample_filter_slot(addrs[i])], 1,
				   __ATOMIC_RELAXED);
		forgotten++;
	}
	return forgotten;
}

int sampling__thread_calls(struct heaptap_bpf *skel, thread_calls_fn fn, void *ctx)
{
	int cpus = libbpf_num_possible_cpus(), fd = bpf_map__fd(skel->maps.thread_calls);
	struct ht_cpu_calls *per_cpu;
	struct ht_thread_calls calls;
	__u64 key, next;
	bool first = true;
	__u32 zero = 0;

	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		if (!bpf_map_lookup_elem(fd, &key, &calls))
			fn(ctx, key >> 32, (uint32_t)key, (const uint64_t *)calls.calls);
	}
	if (cpus <= 0)
		return cpus;
	per_cpu = calloc(cpus, sizeof(*per_cpu));
	if (!per_cpu)
		return -ENOMEM;
	/* Each CPU's counts since its last switch: its owner's, the task it switched to. */
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.cpu_calls), &zero, per_cpu)) {
		free(per_cpu);
		return -errno;
	}
	for (int cpu = 0; cpu < cpus; cpu++) {
		uint64_t any = 0;

		for (int f = 0; f < HT_NR_FUNCS; f++)
			any |= per_cpu[cpu].calls[f];
		if (any && per_cpu[cpu].pid)
			fn(ctx, per_cpu[cpu].pid, per_cpu[cpu].tid,
			   (const uint64_t *)per_cpu[cpu].calls);
	}
	free(per_cpu);
	return 0;
}
