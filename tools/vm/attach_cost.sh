#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# What attaching to and detaching from processes costs on other kernels (make vm-bench):
# tools/bench/attach.sh (without its follow part) in QEMU on each kernel given, and on
# the ones with uprobe_multi links again with them turned off, so that the perf event
# fallback is measured next to the links on one kernel. QEMU emulates (TCG) where KVM
# cannot run it: compare figures within one run, not with make bench's.
#
#   tools/vm/attach_cost.sh [KERNEL...]     (default: 6.1 6.12; PROCS=16 ROUNDS=3)
set -uo pipefail
cd "$(dirname "$0")/../.."
bench="FOLLOW=0 PROCS=${PROCS:-16} ROUNDS=${ROUNDS:-3} HEAPTAP=./heaptap tools/bench/attach.sh"

for k in ${@:-6.1 6.12}; do
	echo "== Linux $k"
	tools/vm/run.sh "$k" -- sh -c "$bench 2>&1 | grep -v '^round'; echo '-- uprobe_multi links off:';
		HEAPTAP_FORCE_NO_UPROBE_MULTI=1 $bench 2>&1 | grep -v '^round'" || exit
done
