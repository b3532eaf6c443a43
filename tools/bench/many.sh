#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Eight processes allocating as fast as they can, watched two ways over the same window:
#   attach -d T             heaptap consuming events only
#   top -n T (full screen)  the same, plus the 1 Hz view, in a pseudo-terminal
# Prints the events heaptap handled and lost, and heaptap's CPU both ways: the difference
# is what the view costs. CPU comes from the shell's `times` (heaptap's own, children
# reaped by it only: the loops are not its children).
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
procs=${PROCS:-8}
window=${WINDOW:-5}
iterations=${MANY_ITERATIONS:-60000}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; kill $(jobs -p) 2>/dev/null || true' EXIT

start_loops() {
	pids=()
	for ((i = 0; i < procs; i++)); do
		"$bench/malloc_loop" "$iterations" --wait >/dev/null &
		pids+=($!)
	done
	sleep 0.2
}

# "0m1.250s" -> 1.250
seconds() { awk '{ split($1, a, /[ms]/); printf "%.3f", a[1] * 60 + a[2] }'; }

# Run a command with the loops released once it has attached; print its CPU seconds.
cpu_while_watching() {
	local out=$1 ready=$2
	shift 2
	{ "$@" >"$out" 2>"$out.err"; times >"$out.times"; } &
	local watcher=$!
	# A pseudo-terminal carries standard error on standard output.
	for _ in $(seq 100); do cat "$out" "$out.err" 2>/dev/null | grep -q "$ready" && break; sleep 0.1; done
	kill -USR1 "${pids[@]}"
	wait "$watcher" || true
	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
	tail -1 "$out.times" | awk '{ print $1 }' | seconds # user
	echo -n " "
	tail -1 "$out.times" | awk '{ print $2 }' | seconds # system
	echo
}

start_loops
list=$(IFS=,; echo "${pids[*]}")
plain=$(cpu_while_watching "$scratch/attach" "attached to PID ${pids[-1]}" \
	"$heaptap" attach -d "$window" --json "$scratch/attach.json" -p "$list")
read -r events lost < <(python3 - "$scratch/attach.json" <<'PY' 2>/dev/null || echo "? ?"
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(sum(p["total"]["calls"].values()) for p in d["processes"]),
      sum(p["lost_events"] for p in d["processes"]))
PY
)

start_loops
list=$(IFS=,; echo "${pids[*]}")
view=$(TERM=xterm cpu_while_watching "$scratch/top" "attached to PID ${pids[-1]}" \
	script -qefc "$heaptap top -i 1 -n $window -p $list" /dev/null)

echo "$procs processes for ${window}s: $events calls traced, $lost lost"
awk -v p="$plain" -v v="$view" -v w="$window" 'BEGIN {
	split(p, a, " "); split(v, b, " ");
	pc = a[1] + a[2]; vc = b[1] + b[2];
	printf "heaptap cpu: events only %.1f%%, with the 1 Hz view %.1f%% of one core\n", 100 * pc / w, 100 * vc / w;
	printf "view cost %.1f%% of one core\n", 100 * (vc - pc) / w }'
