// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "heaptap.skel.h"
#include "log.h"
#include "sample_weights.h"
#include "sampling.h"
#include "uprobe_links.h"

/* enum bpf_attach_type's BPF_TRACE_UPROBE_SESSION (Linux 6.13), past Debian 12's headers. */
#define ATTACH_UPROBE_SESSION 57

static bool has_session_uprobes(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool has = false;
	int id;

	if (!btf)
		return false;
	if (btf__find_by_name_kind(btf, "bpf_session_is_return", BTF_KIND_FUNC) > 0 &&
	    (id = btf__find_by_name_kind(btf, "bpf_attach_type", BTF_KIND_ENUM)) > 0) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e = btf_enum(t);

		for (int i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(btf, e[i].name_off),
				    "BPF_TRACE_UPROBE_SESSION"))
				has = e[i].val == ATTACH_UPROBE_SESSION;
	}
	btf__free(btf);
	return has;
}

bool sampling__session_uprobes(void)
{
	static int known = -1;

	if (known < 0)
		known = has_session_uprobes();
	return known;
}

bool sampling__configure(struct heaptap_bpf *skel, uint64_t sample_bytes)
{
	bool session = sampling__session_uprobes() && !getenv("HEAPTAP_NO_SESSION_UPROBES");

	skel->rodata->sample_bytes = sample_bytes;
	for (uint32_t b = 0; sample_bytes && b < HT_SAMPLE_BUCKETS; b++)
		skel->rodata->sample_threshold[b] = sample_threshold(sample_bytes, b);
	bpf_program__set_expected_attach_type(skel->progs.alloc_session, ATTACH_UPROBE_SESSION);
	bpf_program__set_autoload(skel->progs.alloc_session, session);
	bpf_program__set_autoload(skel->progs.alloc_entry, !session);
	bpf_program__set_autoload(skel->progs.alloc_return, !session);
	log_debug("malloc-family probes: %s; %s", session ?
			  "session uprobes (an unsampled call skips its return)" :
			  "entry and return uprobes (the return exits at once when unsampled)",
		  sample_bytes ? "sampled by bytes" : "every call");
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
		.attach_type = ATTACH_UPROBE_SESSION,
		.path = (uint64_t)(uintptr_t)path,
		.offsets = (uint64_t)(uintptr_t)offsets,
		.cookies = (uint64_t)(uintptr_t)cookies,
		.cnt = nr,
		.pid = pid,
	};
	int fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));

	return fd >= 0 ? fd : -errno;
}
