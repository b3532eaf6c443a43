#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The OS view's BPF cost per system call, from the kernel's BPF statistics (run_time_ns /
# run_cnt of os_call_enter and os_call_exit, enabled for the run and restored after):
#   traced     a traced process's mmap/munmap (stack unwound, event sent)
#   untraced   any other process's system call: the filter only (the syscall number, then
#              the traced set for mapping calls; the workload makes mapping calls)
# Every system call of the machine runs both programs while heaptap is loaded, so the
# traced figure subtracts the untraced cost of the other calls counted meanwhile.
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
n=${OS_VIEW_PAIRS:-100000}
loop=$bench/mmap_loop

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root to load BPF programs (run it with sudo)" >&2
	exit 1
fi
# Its workload is built here: the bench's makefile is shared.
src=$(dirname "$0")/mmap_loop.c
if [ ! -x "$loop" ] || [ "$src" -nt "$loop" ]; then
	mkdir -p "$bench"
	${CC:-cc} -O2 -g "$src" -o "$loop"
fi
dir=$(mktemp -d)
was=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled="$was"; touch "$dir"/{go,exit} 2>/dev/null; wait; rm -rf "$dir"' EXIT
sysctl -qw kernel.bpf_stats_enabled=1

# "run_time_ns run_cnt" of a program heaptap has loaded (the newest of that name).
stats() {
	bpftool prog show -j | python3 -c '
import json, sys
progs = [p for p in json.load(sys.stdin) if p.get("name") == sys.argv[1]]
p = max(progs, key=lambda p: p["id"])
print(p.get("run_time_ns", 0), p.get("run_cnt", 0))' "$1"
}

await() {
	for ((i = 0; i < 3000; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.01
	done
	echo "bench: os_view: $1 never came" >&2
	exit 1
}

# One traced phase: heaptap runs mmap_loop N in $1; the untraced loop runs meanwhile if
# $2 says so. Prints enter and exit deltas: "t_enter c_enter t_exit c_exit".
phase() {
	local sub="$dir/$1" traced_n=$2 untraced_n=$3 e0 x0 e1 x1
	mkdir -p "$sub"
	"$heaptap" run -o /dev/null -- "$loop" "$traced_n" "$sub" 2>"$sub/err" &
	await "$sub/ready"
	read -r e0t e0c < <(stats os_call_enter)
	read -r x0t x0c < <(stats os_call_exit)
	touch "$sub/go"
	if [ "$untraced_n" -gt 0 ]; then "$loop" "$untraced_n"; fi
	await "$sub/done"
	read -r e1t e1c < <(stats os_call_enter)
	read -r x1t x1c < <(stats os_call_exit)
	touch "$sub/exit"
	wait
	echo $((e1t - e0t)) $((e1c - e0c)) $((x1t - x0t)) $((x1c - x0c))
}

# The filter: heaptap traces a process that waits; an untraced one makes the calls.
read -r et ec xt xc < <(phase idle 0 "$n")
untraced=$(awk -v et="$et" -v ec="$ec" -v xt="$xt" -v xc="$xc" \
	'BEGIN { printf "%.1f", et / ec + xt / xc }')
split=$(awk -v et="$et" -v ec="$ec" -v xt="$xt" -v xc="$xc" \
	'BEGIN { printf "sys_enter %.1f + sys_exit %.1f", et / ec, xt / xc }')
# The traced calls: 2n of them (mmap, munmap); the rest of the machine's calls cost as above.
read -r et ec xt xc < <(phase traced "$n" 0)
traced=$(awk -v et="$et" -v ec="$ec" -v xt="$xt" -v xc="$xc" -v m=$((2 * n)) -v u="$untraced" \
	'BEGIN { printf "%.1f", (et + xt - (ec + xc - 2 * m) * u / 2) / m }')
echo "OS view: BPF cost per system call (run_time_ns/run_cnt, the statistics' own clock reads"
echo "included), $((2 * n)) traced mmap/munmap calls; untraced: $split ns"
echo "bpf os_view per-syscall untraced $untraced ns"
echo "bpf os_view per-syscall $traced ns"
