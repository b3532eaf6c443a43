#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The cost of a traced malloc+free pair, three ways side by side in one run, interleaved
# round by round so that the machine's noise falls on all three alike:
#   untraced   the loop alone
#   empty      under heaptap's probe set with programs that do nothing (the trap floor)
#   heaptap    under heaptap run
# Prints the median of each and the ratios; heaptap/empty is the figure that matters.
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
rounds=${ROUNDS:-7}
traced_n=${TRACED_ITERATIONS:-100000}
untraced_n=${UNTRACED_ITERATIONS:-20000000}

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root to load BPF (run it with sudo)" >&2
	exit 1
fi

ns() { "$@" | awk '/^ns_per_pair/ { print $2 }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

untraced=() empty=() traced=()
for ((r = 1; r <= rounds; r++)); do
	untraced+=("$(ns "$bench/malloc_loop" "$untraced_n")")
	empty+=("$(ns "$bench/empty_probes" -- "$bench/malloc_loop" "$traced_n")")
	traced+=("$(ns "$heaptap" run -o /dev/null -- "$bench/malloc_loop" "$traced_n")")
	echo "round $r: untraced ${untraced[-1]}  empty ${empty[-1]}  heaptap ${traced[-1]} ns/pair" >&2
done

u=$(printf '%s\n' "${untraced[@]}" | median)
e=$(printf '%s\n' "${empty[@]}" | median)
t=$(printf '%s\n' "${traced[@]}" | median)
echo "malloc(64)+free pairs, median of $rounds interleaved rounds"
printf 'untraced  %10.1f ns/pair\n' "$u"
printf 'empty     %10.1f ns/pair\n' "$e"
printf 'heaptap   %10.1f ns/pair\n' "$t"
awk -v e="$e" -v u="$u" 'BEGIN { printf "empty/untraced %.1f\n", e / u }'
awk -v t="$t" -v e="$e" 'BEGIN { printf "heaptap/empty %.2f\n", t / e }'
