// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Probes that do nothing: what the trap alone costs, the floor heaptap is measured on. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("uprobe")
int BPF_KPROBE(empty_entry)
{
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(empty_return)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
