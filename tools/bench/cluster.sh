#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The cluster's figures:
#   ingest  a collector fed by simulated agents on loopback (tools/bench/ingest.c):
#           AGENTS x RANKS ranks at 1 Hz, GROUPS changed groups each per batch; its CPU
#           and the database's growth per rank-hour.
#   agent   heaptap's own CPU per traced rank, agent (1 Hz to a collector) next to attach,
#           on RANKS_TRACED idle ranks (groundtruth --park: 4 threads, 13 functions) and on
#           RANKS_TRACED busy ones (malloc_loop, a malloc+free pair after another).
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
targets=${TARGETS:-.output/targets}
agents=${AGENTS:-100}
ranks=${RANKS:-100}
groups=${GROUPS_PER_RANK:-20}
seconds=${SECONDS_MEASURED:-120}
traced=${RANKS_TRACED:-4}
window=${WINDOW:-20}

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root to load BPF programs (run it with sudo)" >&2
	exit 1
fi
scratch=$(mktemp -d)
pids=()
cleanup() {
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
	rm -rf "$scratch"
}
trap cleanup EXIT

# A collector on a free port: sets collector (pid) and endpoint.
start_collector() {
	"$heaptap" collect --listen 127.0.0.1:0 --db "$scratch/$1.sqlite" 2>"$scratch/$1.err" &
	collector=$!
	pids+=("$collector")
	for _ in $(seq 100); do
		grep -q 'collecting on' "$scratch/$1.err" && break
		sleep 0.1
	done
	endpoint=$(sed -n 's/.*collecting on //p' "$scratch/$1.err")
	[ -n "$endpoint" ] || { echo "bench: the collector did not start" >&2; exit 1; }
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

start_collector ingest
"$bench/ingest" "$endpoint" "$collector" "$scratch/ingest.sqlite" "$agents" "$ranks" \
	"$groups" "$seconds"
kill "$collector"
wait "$collector" 2>/dev/null || true

# heaptap's CPU over the window, in % of a core per traced rank: MODE (attach|agent) KIND.
tracer_cpu() {
	local mode=$1 kind=$2 targets_pids=() list tracer t0 t1 hz
	hz=$(getconf CLK_TCK)
	for ((i = 0; i < traced; i++)); do
		if [ "$kind" = idle ]; then
			"$targets/groundtruth" --park >/dev/null &
		else
			"$bench/malloc_loop" 100000000000 --wait >/dev/null &
		fi
		targets_pids+=($!)
		pids+=($!)
	done
	sleep 0.5
	list=$(IFS=,; echo "${targets_pids[*]}")
	if [ "$mode" = attach ]; then
		"$heaptap" attach -p "$list" -o /dev/null 2>"$scratch/tracer.err" &
	else
		"$heaptap" agent --collector "$endpoint" -p "$list" 2>"$scratch/tracer.err" &
	fi
	tracer=$!
	for _ in $(seq 300); do
		[ "$(grep -c 'attached to PID' "$scratch/tracer.err" || true)" -ge "$traced" ] && break
		sleep 0.1
	done
	[ "$kind" = busy ] && kill -USR1 "${targets_pids[@]}"
	sleep 1
	t0=$(cpu_ticks "$tracer")
	sleep "$window"
	t1=$(cpu_ticks "$tracer")
	kill -INT "$tracer"
	wait "$tracer" 2>/dev/null || true
	kill "${targets_pids[@]}" 2>/dev/null || true
	wait "${targets_pids[@]}" 2>/dev/null || true
	awk -v d=$((t1 - t0)) -v hz="$hz" -v w="$window" -v n="$traced" \
		'BEGIN { printf "%.2f", d / hz / w / n * 100 }'
}

start_collector agent
for kind in idle busy; do
	attach=$(tracer_cpu attach "$kind")
	agent=$(tracer_cpu agent "$kind")
	echo "agent: heaptap's CPU per traced rank ($traced $kind ranks, ${window} s): attach" \
		"${attach}% of a core, agent at 1 Hz ${agent}%"
done
