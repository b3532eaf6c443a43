#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The cost of a malloc+free pair three ways in one run, interleaved round by round so that
# the machine's noise falls on all three alike:
#   untraced   the loop alone
#   empty      under heaptap's probe set with programs that do nothing (the trap floor)
#   heaptap    under heaptap run
# Prints the median of each and the ratios; heaptap/empty is what heaptap's own work costs.
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
rounds=${ROUNDS:-7}
# A pair under probes costs three hits (malloc entry and return, free entry), ~25 us on the
# test VMs, where free's first instruction is stepped out of line: ~1.5 s per traced run.
traced_n=${TRACED_ITERATIONS:-50000}
untraced_n=${UNTRACED_ITERATIONS:-20000000}

. "$(dirname "$0")/timing.sh"

untraced=() empty=() traced=()
for ((r = 1; r <= rounds; r++)); do
	u=$(ns "$bench/malloc_loop" "$untraced_n")
	e=$(ns "$bench/empty_probes" -- "$bench/malloc_loop" "$traced_n")
	t=$(ns "$heaptap" run -o /dev/null -- "$bench/malloc_loop" "$traced_n")
	untraced+=("$u") empty+=("$e") traced+=("$t")
	echo "round $r/$rounds: untraced $u  empty $e  heaptap $t ns/pair" >&2
done

u=$(printf '%s\n' "${untraced[@]}" | median)
e=$(printf '%s\n' "${empty[@]}" | median)
t=$(printf '%s\n' "${traced[@]}" | median)
echo "malloc(64)+free pairs, median of $rounds interleaved rounds"
printf 'untraced  %.1f ns/pair\n' "$u"
printf 'empty     %.1f ns/pair\n' "$e"
printf 'heaptap   %.1f ns/pair\n' "$t"
# heaptap/empty last: it is the figure the run is for.
awk -v t="$t" -v e="$e" -v u="$u" 'BEGIN {
	printf "empty/untraced %.1f\n", e / u
	printf "heaptap/empty %.2f\n", t / e }'
