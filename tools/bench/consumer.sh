#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The consumer's CPU per event: heaptap's own CPU time (perf stat --no-inherit -e
# task-clock on heaptap's process, every thread of it, not the program it runs) over a steady
# malloc+free loop, divided by the calls it charged (its JSON report). Every event there
# has a stack seen before: the figure is the per-event path (ring buffer, the stack's
# cached answer, the balances, the live blocks), not naming. Median of several runs.
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
rounds=${ROUNDS:-5}
pairs=${CONSUMER_PAIRS:-3000000}
. "$(dirname "$0")/timing.sh"

if ! command -v perf >/dev/null; then
	echo "bench: consumer ns-per-event needs perf (Debian: apt-get install linux-perf)" >&2
	exit 1
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$err" "$err.out"' EXIT

figures=()
for ((r = 1; r <= rounds; r++)); do
	"$heaptap" run -o /dev/null --json "$scratch/run.json" -- "$bench/malloc_loop" "$pairs" \
		>"$scratch/out" 2>"$err" &
	pid=$!
	# Once its consumer thread is there: -p counts the threads it finds, and --no-inherit
	# keeps the traced program out (the CPU of the first calls read is left out).
	until ! kill -0 "$pid" 2>/dev/null ||
		grep -qx heaptap-cons0 /proc/"$pid"/task/*/comm 2>/dev/null; do
		sleep 0.01
	done
	perf stat --no-inherit -x, -e task-clock -o "$scratch/stat" -p "$pid" 2>/dev/null &
	perf_pid=$!
	status=0
	wait "$pid" || status=$?
	wait "$perf_pid" || true
	if [ "$status" -ne 0 ] || ! grep -q '^ns_per_pair ' "$scratch/out"; then
		echo "bench: failed (exit $status): heaptap run of malloc_loop: $(last_words "$err")" >&2
		exit 1
	fi
	ms=$(awk -F, '/task-clock/ { print $1 }' "$scratch/stat")
	events=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(sum(p["total"]["calls"].values()) for p in d["processes"]))' "$scratch/run.json")
	lost=$(python3 -c 'import json, sys
print(sum(p["lost_events"] for p in json.load(open(sys.argv[1]))["processes"]))' \
		"$scratch/run.json")
	f=$(awk -v ms="$ms" -v n="$events" 'BEGIN { printf "%.1f\n", ms * 1e6 / n }')
	figures+=("$f")
	echo "round $r/$rounds: heaptap CPU $ms ms over $events events ($lost lost): $f ns" >&2
done
f=$(printf '%s\n' "${figures[@]}" | median)
echo "malloc(64)+free loop of $pairs pairs under heaptap run, median of $rounds runs"
printf 'consumer ns-per-event %.1f (goal <= 100)\n' "$f"
