/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --sample-bytes R on the BPF side: the thresholds set before load (bpf/sampling.bpf.h),
 * and session uprobes, which let an unsampled call skip its return trap.
 *
 * Session uprobes (kernel_features.h, Linux 6.13) are used in sampled mode where the kernel
 * has them and HEAPTAP_NO_SESSION_UPROBES is unset (the bench measures the return
 * program's early exit with it); exact mode keeps its entry and return programs. Debian
 * 12's libbpf 1.1 has no "uprobe.session" section: the program's attach type is set by
 * hand and its link made by BPF_LINK_CREATE, as uprobe_multi links are.
 */
#ifndef HEAPTAP_SAMPLING_H
#define HEAPTAP_SAMPLING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct heaptap_bpf;

/*
 * Between open and load: R and its thresholds, and which of the allocator's programs
 * load (the session one, or the entry and return pair). Returns whether the session
 * program is used.
 */
bool sampling__configure(struct heaptap_bpf *skel, uint64_t sample_bytes);
/* A session link of prog_fd at offsets[0..nr) of path in pid: its fd, or -errno. */
int sampling__attach_session(int prog_fd, const char *path, const uint64_t *offsets,
			     const uint64_t *cookies, size_t nr, pid_t pid);

/*
 * A sampled process ended (or exec'd): its sampled blocks still allocated, at addrs, out
 * of the BPF side's table and its filter, which would otherwise keep them for good (an
 * agent runs for weeks). Returns how many the table held.
 */
size_t sampling__forget_blocks(struct heaptap_bpf *skel, pid_t pid, const uint64_t *addrs,
			       size_t nr);

/* A thread's calls of each function (HT_NR_FUNCS of them), counted exactly. */
typedef void (*thread_calls_fn)(void *ctx, uint32_t pid, uint32_t tid, const uint64_t *calls);
/*
 * Once tracing has stopped: the calls of the threads that have not exited (the exited ones
 * came in their exit events), counted in BPF (bpf/thread_calls.bpf.h); a thread may be
 * given twice, its entry's and what its CPU counted since. 0 or -errno.
 */
int sampling__thread_calls(struct heaptap_bpf *skel, thread_calls_fn fn, void *ctx);

#endif
