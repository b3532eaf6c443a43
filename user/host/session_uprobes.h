/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Session uprobes (BPF_TRACE_UPROBE_SESSION, Linux 6.13): one BPF program at a function's
 * entry and its return, where an entry that returns non-zero has its return skipped. Found
 * in the running kernel's BTF (the attach type and the bpf_session_is_return kfunc), with
 * nothing loaded.
 */
#ifndef HEAPTAP_SESSION_UPROBES_H
#define HEAPTAP_SESSION_UPROBES_H

#include <stdbool.h>

/* enum bpf_attach_type's value, past Debian 12's headers. */
#define HT_ATTACH_UPROBE_SESSION 57

/* Does the running kernel have them? Asked once. */
bool kernel_has_session_uprobes(void);

#endif
