// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kernel_features.h"
#include "log.h"


static const struct kernel_feature_info features[KF_NR] = {
	[KF_BTF] = { "kernel BTF (/sys/kernel/btf/vmlinux)", "5.2", KF_REQUIRED,
		     "heaptap's programs are compiled once, against the kernel's BTF" },
	[KF_UPROBES] = { "uprobes (the uprobe perf PMU)", "4.17", KF_REQUIRED,
			 "no probe can be placed" },
	[KF_RINGBUF] = { "BPF ring buffer", "5.8", KF_REQUIRED,
			 "events travel in one ordered ring buffer" },
	[KF_TASK_STORAGE] = { "BPF task local storage", "5.11", KF_REQUIRED,
			      "each thread's call in flight is kept there" },
	[KF_TP_BTF] = { "BTF tracepoints (tp_btf)", "5.5", KF_REQUIRED,
			"fork, exec, exit and the system calls are followed through them" },
	[KF_BPF_LOOP] = { "bpf_loop", "5.17", KF_REQUIRED,
			  "the stack unwinder steps one frame per loop iteration" },
	[KF_ATTACH_COOKIE] = { "attach cookies (bpf_get_attach_cookie)", "5.15", KF_REQUIRED,
			       "one program serves every function through its cookie" },
	[KF_UPROBE_MULTI] = { "uprobe_multi links (filtering by process)", "6.6", KF_FALLBACK,
			      "one perf event per probed function and process instead, on "
			      "uprobe events of tracefs (root only)" },
	[KF_UPROBE_SESSION] = { "session uprobes", "6.13", KF_OPTIONAL,
				"nothing yet (one program at entry and return)" },
};

const struct kernel_feature_info *kernel_feature_info(enum kernel_feature f)
{
	return &features[f];
}

/* BPF_LINK_CREATE's uprobe_multi arguments as the kernel lays them out (union bpf_attr). */
struct uprobe_multi_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t link_flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t flags;
	uint32_t pid;
	uint32_t pad;
};

int uprobe_multi_link_create(int prog_fd, unsigned int attach_type, const char *path,
			     const uint64_t *offsets, const uint64_t *cookies, size_t nr,
			     unsigned int flags, pid_t pid)
{
	struct uprobe_multi_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = prog_fd;
	attr.attach_type = attach_type;
	attr.path = (uint64_t)(uintptr_t)path;
	attr.offsets = (uint64_t)(uintptr_t)offsets;
	attr.cookies = (uint64_t)(uintptr_t)cookies;
	attr.cnt = nr;
	attr.flags = flags;
	attr.pid = pid;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd >= 0 ? fd : -errno;
}

/* r0 = 0; exit: a program that only needs to be accepted. */
static const struct bpf_insn return_zero[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static int load_probe(enum bpf_prog_type type, unsigned int attach_type, unsigned int btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = attach_type,
		    .attach_btf_id = btf_id);
	int fd = bpf_prog_load(type, NULL, "GPL", return_zero, 2, &opts);

	return fd >= 0 ? fd : -errno;
}

/*
 * A link on "/" (a directory: nothing to probe) fails with EBADF only on a kernel that
 * knows the attach type and got as far as opening the path.
 */
static int try_uprobe_link(unsigned int attach_type, pid_t pid, int expect)
{
	uint64_t offset = 0, cookie = 0;
	int prog, link;

	prog = load_probe(BPF_PROG_TYPE_KPROBE, attach_type, 0);
	if (prog == -EPERM || prog == -EACCES)
		return prog;
	if (prog < 0)
		return 0;
	link = uprobe_multi_link_create(prog, attach_type, "/", &offset, &cookie, 1, 0, pid);
	close(prog);
	if (link >= 0) {
		close(link);
		return 0;
	}
	return link == -expect;
}

/*
 * uprobe_multi links filtered threads, not processes, until Linux 6.10 (and the stable
 * releases that took the fix): a process's other threads went untraced. A fixed kernel
 * refuses pid -1 before it looks at the path (EINVAL); an older one fails on the path.
 */
static int probe_uprobe_multi(void)
{
	int ok = try_uprobe_link(HT_ATTACH_UPROBE_MULTI, 0, EBADF);

	if (ok <= 0)
		return ok;
	return try_uprobe_link(HT_ATTACH_UPROBE_MULTI, -1, EINVAL);
}

/* A tp_btf program on sched_process_exec, as process.bpf.c has. */
static int probe_tp_btf(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id, fd;

	if (!vmlinux)
		return 0;
	id = btf__find_by_name_kind(vmlinux, "btf_trace_sched_process_exec", BTF_KIND_TYPEDEF);
	btf__free(vmlinux);
	if (id <= 0)
		return 0;
	fd = load_probe(BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, id);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return fd == -EPERM || fd == -EACCES ? fd : 0;
}

static int answer(int libbpf_probe)
{
	if (libbpf_probe == -EPERM || libbpf_probe == -EACCES)
		return libbpf_probe;
	return libbpf_probe > 0;
}

/*
 * May heaptap load a program at all? Without CAP_BPF every probe would fail as if the
 * feature were missing: -EPERM then, and nothing is probed (loading will say why).
 */
static int may_probe(void)
{
	static int allowed = 1; /* 1: not tried yet */
	int fd;

	if (allowed != 1)
		return allowed;
	fd = load_probe(BPF_PROG_TYPE_KPROBE, 0, 0);
	if (fd >= 0)
		close(fd);
	allowed = fd == -EPERM || fd == -EACCES ? fd : 0;
	return allowed;
}

static int probe(enum kernel_feature f)
{
	if (f != KF_BTF && f != KF_UPROBES && may_probe())
		return may_probe();
	switch (f) {
	case KF_BTF:
		return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	case KF_UPROBES:
		return access("/sys/bus/event_source/devices/uprobe/type", R_OK) == 0;
	case KF_RINGBUF:
		return answer(libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL));
	case KF_TASK_STORAGE:
		return answer(libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL));
	case KF_TP_BTF:
		return probe_tp_btf();
	case KF_BPF_LOOP:
		return answer(libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_loop, NULL));
	case KF_ATTACH_COOKIE:
		return answer(libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
						      BPF_FUNC_get_attach_cookie, NULL));
	case KF_UPROBE_MULTI:
		return probe_uprobe_multi();
	case KF_UPROBE_SESSION:
		return try_uprobe_link(HT_ATTACH_UPROBE_SESSION, 0, EBADF);
	default:
		return 0;
	}
}

bool kernel_feature_forced_off(enum kernel_feature f)
{
	const char *v = getenv("HEAPTAP_FORCE_NO_UPROBE_MULTI");

	return f == KF_UPROBE_MULTI && v && strcmp(v, "0") != 0 && *v;
}

/* Answers, plus 2: 0 means not probed yet. */
static int known[KF_NR];

int kernel_has(enum kernel_feature f)
{
	int got = __atomic_load_n(&known[f], __ATOMIC_ACQUIRE);
	libbpf_print_fn_t old;

	if (kernel_feature_forced_off(f))
		return 0;
	if (got)
		return got - 2;
	/* libbpf's probes log their failures: a missing feature is an answer here. */
	old = libbpf_set_print(NULL);
	got = probe(f);
	libbpf_set_print(old);
	if (got >= 0)
		__atomic_store_n(&known[f], got + 2, __ATOMIC_RELEASE);
	return got;
}

int kernel_features_check(void)
{
	for (int f = 0; f < KF_NR; f++) {
		int has;

		if (features[f].need != KF_REQUIRED)
			continue;
		has = kernel_has(f);
		if (has < 0)
			return has;
		if (!has) {
			struct utsname u;

			log_error("needs %s (Linux %s or later), which this kernel (%s) lacks: %s",
				  features[f].name, features[f].since,
				  uname(&u) ? "?" : u.release, features[f].cost);
			return -ENOTSUP;
		}
	}
	return 0;
}
