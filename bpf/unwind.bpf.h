/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The user-stack unwinder, as one function so that another walk can replace it:
 * frames[0] is the probed pc, frames[1] its caller, then outwards.
 *
 * This one walks frame pointers. At a uprobe on a function's first instruction the return
 * address sits at [rsp] and rbp still belongs to the caller, so frame 1 comes from [rsp]
 * and the rbp chain then yields the caller's callers. Userspace validates every frame.
 */
#ifndef HEAPTAP_UNWIND_BPF_H
#define HEAPTAP_UNWIND_BPF_H

#include "heaptap.bpf.h"
#include <bpf/bpf_tracing.h>

struct fp_record {
	__u64 next_fp;
	__u64 ret;
};

static __always_inline __u32 unwind_user_stack(struct pt_regs *regs, __u64 *frames,
					       __u32 *flags)
{
	__u64 fp = PT_REGS_FP(regs);
	struct fp_record rec;
	__u32 n = 1;

	frames[0] = PT_REGS_IP(regs);
	if (bpf_probe_read_user(&frames[1], sizeof(frames[1]), (void *)PT_REGS_SP(regs)))
		return n;
	n = 2;
	for (__u32 i = 2; i < HT_MAX_FRAMES; i++) {
		if (!fp || (fp & 7))
			return n;
		if (bpf_probe_read_user(&rec, sizeof(rec), (void *)fp) || !rec.ret)
			return n;
		frames[i] = rec.ret;
		n = i + 1;
		/* Stacks grow down: a chain that does not climb is not a chain. */
		if (rec.next_fp <= fp)
			return n;
		fp = rec.next_fp;
	}
	*flags |= HT_F_STACK_TRUNC;
	return n;
}

#endif
