/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The kernel features heaptap uses, each found by trying it (a map created, a helper or a
 * program loaded, a link attempted on a path that cannot be probed), not by the kernel's
 * version: enterprise kernels carry features far past their version number.
 */
#ifndef HEAPTAP_KERNEL_FEATURES_H
#define HEAPTAP_KERNEL_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The kernel's attach types of uprobe_multi links (BPF_TRACE_UPROBE_MULTI) and session
 * uprobes (BPF_TRACE_UPROBE_SESSION), which Debian 12's headers predate.
 */
#define HT_ATTACH_UPROBE_MULTI 48
#define HT_ATTACH_UPROBE_SESSION 57

enum kernel_feature {
	KF_BTF,		    /* /sys/kernel/btf/vmlinux: CO-RE and BTF tracepoints */
	KF_UPROBES,	    /* the uprobe perf PMU */
	KF_RINGBUF,	    /* BPF_MAP_TYPE_RINGBUF (5.8) */
	KF_TASK_STORAGE,    /* BPF_MAP_TYPE_TASK_STORAGE (5.11) */
	KF_TP_BTF,	    /* BTF tracepoints, tp_btf programs (5.5) */
	KF_BPF_LOOP,	    /* the bpf_loop helper (5.17) */
	KF_ATTACH_COOKIE,   /* bpf_get_attach_cookie and perf event links with a cookie (5.15) */
	KF_UPROBE_MULTI,    /* uprobe_multi links that filter by process (6.6; fixed 6.10) */
	KF_UPROBE_SESSION,  /* session uprobes: one program at entry and return (6.13) */
	KF_NR
};

/* What lacking a feature does to heaptap. */
enum kernel_feature_need {
	KF_REQUIRED,  /* heaptap refuses to trace without it */
	KF_FALLBACK,  /* heaptap uses another way, at a cost */
	KF_OPTIONAL,  /* nothing heaptap does today needs it */
};

struct kernel_feature_info {
	const char *name;  /* "uprobe_multi links" */
	const char *since; /* "6.6": the mainline release that brought it */
	enum kernel_feature_need need;
	const char *cost;  /* what lacking it costs, one line */
};

const struct kernel_feature_info *kernel_feature_info(enum kernel_feature f);

/*
 * Does the running kernel have f? 1 or 0; -EPERM (or another -errno) when it could not be
 * tried (loading a probe needs CAP_BPF). Probed once, then remembered.
 * HEAPTAP_FORCE_NO_UPROBE_MULTI=1 in the environment answers 0 for uprobe_multi links
 * (their fallback, tested on a kernel that has them).
 */
int kernel_has(enum kernel_feature f);
/* Is f turned off by the environment (HEAPTAP_FORCE_NO_UPROBE_MULTI)? */
bool kernel_feature_forced_off(enum kernel_feature f);

/*
 * Every required feature is there: 0, or -ENOTSUP with one line logged that names the
 * first missing one (and -EPERM, logging nothing, when they could not be probed: loading
 * then says what is wrong).
 */
int kernel_features_check(void);

/*
 * BPF_LINK_CREATE of a uprobe_multi (or session) link: offsets[0..nr) of path in pid, each
 * with its cookie. The link's fd, or -errno. Debian 12's headers and libbpf 1.1 predate it.
 */
int uprobe_multi_link_create(int prog_fd, unsigned int attach_type, const char *path,
			     const uint64_t *offsets, const uint64_t *cookies, size_t nr,
			     unsigned int flags, pid_t pid);

#endif
