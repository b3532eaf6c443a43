#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# What a stack new to a process costs heaptap's consumer at an MPI job's start: the CPU
# inside symbolizer__resolve (the symbolizer's work for a stack id the process had not
# sent: name its frames, put tail calls back, attribute, record it), from perf samples
# of heaptap's process (cpu-clock at 4 kHz, with call graphs: heaptap has frame
# pointers), divided by its calls (counted by a uprobe in a second run, so that the
# probe's trap does not weigh on the timed one). With one rank every frame is new to the
# node; with more, ranks after the first meet frames a rank already named.
#   tools/bench/stack_cost.sh [RANKS...]   (default: 1 4)
# Not part of make bench (perf probe, and one run each): make bench-stacks.
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
. "$(dirname "$0")/timing.sh"
[ $# -gt 0 ] || set -- 1 4

if ! command -v perf >/dev/null || ! command -v mpirun >/dev/null; then
	echo "bench: stack_cost needs perf and mpirun (Debian: linux-perf, openmpi-bin)" >&2
	exit 1
fi
scratch=$(mktemp -d)
group=heaptap_stack_cost
trap 'perf probe -q -d "$group:*" >/dev/null 2>&1 || true; rm -rf "$scratch" "$err" "$err.out"' EXIT

for ranks in "$@"; do
	job=(mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$bench/mpi_start")
	wait_for_no_rank_watchers
	"$heaptap" run --mpi -o /dev/null -- "${job[@]}" >"$scratch/out" 2>"$err" &
	pid=$!
	perf record -q -e cpu-clock -F 4000 -g -o "$scratch/perf.data" -p "$pid" \
		>/dev/null 2>&1 &
	perf_pid=$!
	wait "$pid" || { echo "bench: failed: heaptap run --mpi: $(last_words "$err")" >&2; exit 1; }
	wait "$perf_pid" || true
	samples=$(perf script -i "$scratch/perf.data" -F period 2>/dev/null | wc -l)
	share=$(perf report -i "$scratch/perf.data" --children --stdio --sort sym -g none \
		2>/dev/null | awk '$NF == "symbolizer__resolve" && !n++ { sub("%", "", $1); print $1 }')
	perf probe -q -d "$group:*" >/dev/null 2>&1 || true
	perf probe -x "$heaptap" "$group:resolve=symbolizer__resolve" >/dev/null 2>"$scratch/probe" ||
		{ echo "bench: failed: perf probe: $(last_words "$scratch/probe")" >&2; exit 1; }
	perf stat -x, -e "$group:resolve" -o "$scratch/stat" -- \
		"$heaptap" run --mpi -o /dev/null -- "${job[@]}" >/dev/null 2>"$err"
	calls=$(awk -F, '/resolve/ { print $1 }' "$scratch/stat")
	perf probe -q -d "$group:*" >/dev/null 2>&1
	awk -v s="$samples" -v sh="${share:-0}" -v c="$calls" -v r="$ranks" 'BEGIN {
		ms = s / 4; in_ms = ms * sh / 100
		printf "np%d heaptap %.0f ms CPU, %.0f ms (%.1f%%) resolving %d new stacks\n", \
			r, ms, in_ms, sh, c
		printf "np%d us-per-new-stack %.2f\n", r, in_ms * 1000 / c }'
done
