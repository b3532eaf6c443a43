// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "session_uprobes.h"

static bool found(void)
{
	libbpf_print_fn_t old = libbpf_set_print(NULL); /* no BTF: a plain "no" */
	struct btf *btf = btf__load_vmlinux_btf();
	bool has = false;
	int id;

	libbpf_set_print(old);
	if (!btf)
		return false;
	if (btf__find_by_name_kind(btf, "bpf_session_is_return", BTF_KIND_FUNC) > 0 &&
	    (id = btf__find_by_name_kind(btf, "bpf_attach_type", BTF_KIND_ENUM)) > 0) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e = btf_enum(t);

		for (int i = 0; i < btf_vlen(t); i++)
			if (!strcmp(btf__name_by_offset(btf, e[i].name_off),
				    "BPF_TRACE_UPROBE_SESSION"))
				has = e[i].val == HT_ATTACH_UPROBE_SESSION;
	}
	btf__free(btf);
	return has;
}

bool kernel_has_session_uprobes(void)
{
	static int known = -1;

	if (known < 0)
		known = found();
	return known;
}
