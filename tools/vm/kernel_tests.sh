#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# heaptap on the kernels HPC sites run (make vm-test). On this machine, with uprobe_multi
# links turned off (HEAPTAP_FORCE_NO_UPROBE_MULTI=1): the exact tests through the perf
# event fallback, run and attach under both attribution rules (groundtruth/*) and an
# mpirun job under run --follow, exact per rank. Then in QEMU on each kernel of
# VM_KERNELS (tools/vm/run.sh): heaptap --version against what that release has,
# groundtruth/* and the mpirun job. Under QEMU's emulation (TCG) heaptap works ~20 times
# slower than here: reading an mpirun's hundred plugins it would stop reading events for
# longer than the hold bound (1 s), and the ranks' holds at exec would be skipped: there
# the bound is 20 s (HEAPTAP_HOLD_BOUND_MS). Prints each step's time; exits non-zero if
# any step failed.
#
#   tools/vm/kernel_tests.sh [KERNEL...]                 (default: 6.1 6.12)
#   tools/vm/kernel_tests.sh --inside [--mpi [--emulated]] (what runs in the VM)
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
export HEAPTAP=$top/heaptap TARGETS=$top/.output/targets
mpi_test=follow/every_rank_of_an_mpirun_job
tests="@(groundtruth/*|$mpi_test)"

# Is release ("6.12.117+deb12-amd64") at least major.minor?
at_least() {
	local major=${1%%.*} rest=${1#*.} minor
	minor=${rest%%[!0-9]*}
	[ "$major" -gt "$2" ] || { [ "$major" -eq "$2" ] && [ "$minor" -ge "$3" ]; }
}

# heaptap --version: it runs, finds every feature it needs, and says of uprobe_multi
# links and session uprobes what the kernel's release brought.
check_version() {
	local out release=$(uname -r) want_multi= want_session=no
	out=$("$HEAPTAP" --version) || { echo "heaptap --version failed"; return 1; }
	echo "$out"
	if grep -q "heaptap refuses" <<<"$out"; then
		echo "FAIL: a feature heaptap needs is reported missing on $release"
		return 1
	fi
	at_least "$release" 6 10 && want_multi=yes
	at_least "$release" 6 6 || want_multi=no
	at_least "$release" 6 13 && want_session=yes
	if [ -n "$want_multi" ] &&
		! grep -Eq "^  uprobe_multi links.* $want_multi" <<<"$out"; then
		echo "FAIL: uprobe_multi links on $release should be: $want_multi"
		return 1
	fi
	if ! grep -Eq "^  session uprobes.* $want_session" <<<"$out"; then
		echo "FAIL: session uprobes on $release should be: $want_session"
		return 1
	fi
	echo "PASS: heaptap --version on $release"
}

if [ "${1:-}" = --inside ]; then
	check_version || exit 1
	[ "${2:-}" = --mpi ] || tests='groundtruth/*'
	# Emulated: heaptap reads ~20 times slower than the hold bound was sized for.
	[ "${3:-}" = --emulated ] && export HEAPTAP_HOLD_BOUND_MS=20000
	exec .output/tests/integration_tests --jobs 1 --filter "$tests"
fi

failed=0
step() {
	local name=$1 start=$SECONDS status
	shift
	echo "== $name"
	"$@"
	status=$?
	echo "== $name: $([ $status -eq 0 ] && echo passed || echo "FAILED ($status)")" \
		"in $((SECONDS - start)) s"
	[ $status -eq 0 ] || failed=1
}

step "this machine's kernel, uprobe_multi links off" env HEAPTAP_FORCE_NO_UPROBE_MULTI=1 \
	.output/tests/integration_tests --jobs 1 --filter "$tests"
# As run.sh decides: KVM where kvm_intel or kvm_amd drives it.
mpi="--mpi --emulated"
if [ -w /dev/kvm ] && [ -d /sys/module/kvm_intel -o -d /sys/module/kvm_amd ]; then
	mpi=--mpi
fi
for kernel in "${@:-6.1 6.12}"; do
	for k in $kernel; do
		step "Linux $k in QEMU" tools/vm/run.sh "$k" -- \
			tools/vm/kernel_tests.sh --inside $mpi
	done
done
exit $failed
