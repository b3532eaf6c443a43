#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The cost of a malloc+free pair four ways in one run, interleaved round by round so that
# the machine's noise falls on all alike:
#   untraced     the loop alone
#   naive-empty  heaptap's probe set with programs that do nothing, every probe on its
#                function's first instruction: the floor of any tracer that probes
#                entries (memleak, bpftrace, heaptap before its probe sites)
#   sited-empty  the same probes where heaptap places them (heaptap sites): its own floor
#   heaptap      under heaptap run
#   heaptap-perf under heaptap run with HEAPTAP_FORCE_NO_UPROBE_MULTI=1: the probes as
#                kernels without uprobe_multi links (before 6.6) get them, perf event
#                uprobes (only where this kernel has the links, else heaptap is that)
# Prints the median of each and the ratios: heaptap/sited-empty is what heaptap's own work
# costs, heaptap/naive-empty what it costs next to the usual design's bare traps.
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
rounds=${ROUNDS:-7}
# A pair under probes costs three hits (malloc entry and return, free entry): ~25 us on the
# test VMs with free's first instruction stepped out of line, ~12 us at heaptap's sites.
traced_n=${TRACED_ITERATIONS:-50000}
untraced_n=${UNTRACED_ITERATIONS:-20000000}

. "$(dirname "$0")/timing.sh"

multi=0
"$heaptap" --version | grep -Eq '^  uprobe_multi links.* yes$' && multi=1
untraced=() naive=() sited=() traced=() perf=()
for ((r = 1; r <= rounds; r++)); do
	u=$(ns "$bench/malloc_loop" "$untraced_n")
	n=$(ns "$bench/empty_probes" --entries -- "$bench/malloc_loop" "$traced_n")
	e=$(ns "$bench/empty_probes" -- "$bench/malloc_loop" "$traced_n")
	t=$(ns "$heaptap" run -o /dev/null -- "$bench/malloc_loop" "$traced_n")
	p=$t
	[ $multi = 0 ] || p=$(HEAPTAP_FORCE_NO_UPROBE_MULTI=1 ns "$heaptap" run -o /dev/null -- \
		"$bench/malloc_loop" "$traced_n")
	untraced+=("$u") naive+=("$n") sited+=("$e") traced+=("$t") perf+=("$p")
	echo "round $r/$rounds: untraced $u  naive-empty $n  sited-empty $e  heaptap $t" \
		" heaptap-perf $p ns/pair" >&2
done

u=$(printf '%s\n' "${untraced[@]}" | median)
n=$(printf '%s\n' "${naive[@]}" | median)
e=$(printf '%s\n' "${sited[@]}" | median)
t=$(printf '%s\n' "${traced[@]}" | median)
p=$(printf '%s\n' "${perf[@]}" | median)
echo "malloc(64)+free pairs, median of $rounds interleaved rounds"
printf 'untraced     %.1f ns/pair\n' "$u"
printf 'naive-empty  %.1f ns/pair\n' "$n"
printf 'sited-empty  %.1f ns/pair\n' "$e"
printf 'heaptap      %.1f ns/pair\n' "$t"
printf 'heaptap-perf %.1f ns/pair (perf event uprobes, as without uprobe_multi links)\n' "$p"
# heaptap/naive-empty last: it is the figure the run is for.
awk -v t="$t" -v e="$e" -v n="$n" -v u="$u" -v p="$p" 'BEGIN {
	printf "naive-empty/untraced %.1f\n", n / u
	printf "sited-empty/naive-empty %.2f\n", e / n
	printf "heaptap-perf/heaptap %.2f\n", p / t
	printf "heaptap-perf/naive-empty %.2f\n", p / n
	printf "heaptap/sited-empty %.2f (goal <= 1.15)\n", t / e
	printf "heaptap/naive-empty %.2f (goal <= 0.55)\n", t / n }'
