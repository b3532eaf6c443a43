#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# heaptap's own cost, whatever a uprobe trap costs on this host: the kernel's BPF statistics
# (kernel.bpf_stats_enabled, on for the bench and restored after) give each program's run
# time and run count. While heaptap runs the malloc+free loop (no frame pointers, unwound
# by tables) 7 and 20 frames deep, the programs it holds open are read twice a second from
# /proc/PID/fdinfo; a program's figure is its run time per call between the first and the
# last reading, the loop's start-up left out. Prints, medians of ROUNDS runs:
#   bpf alloc_entry 7-frames X ns     the entry program (malloc's and free's), 7 frames
#   bpf alloc_entry 20-frames X ns    the same, 20 frames
#   bpf unwind-per-frame X ns         what each frame more costs (from the two above)
#   bpf alloc_return X ns             the return program (malloc's)
#   bpf empty-program X ns            a program that does nothing: what measuring costs
#   bpf send-floor X ns               a return program that only sends a record of
#                                     heaptap's call event's size (empty_probes --send)
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
rounds=${ROUNDS:-5}
iterations=${BPF_ITERATIONS:-200000}
. "$(dirname "$0")/timing.sh"

stats_before=$(sysctl -n kernel.bpf_stats_enabled)
samples=$(mktemp)
restore() {
	sysctl -q kernel.bpf_stats_enabled="$stats_before" || true
	rm -f "$err" "$err.stacks" "$err.out" "$samples" "$samples.names"
}
trap restore EXIT
trap 'exit 130' INT TERM
sysctl -q kernel.bpf_stats_enabled=1

# The loop at a real-time priority: on a shared host, time other tasks took from a
# preempted program would count as its own.
loop=(chrt -f 10 "$bench/malloc_loop_nofp" "$iterations" --depth)

# Frames of the loop's stacks (those through pairs()) at depth $1, as heaptap sees them.
frames_at() {
	"$heaptap" run -o /dev/null --stacks "$err.stacks" -- "$bench/malloc_loop_nofp" 10 \
		--depth "$1" >/dev/null 2>"$err" || { echo "bench: failed: heaptap run" \
		"$(last_words "$err")" >&2; exit 1; }
	awk -F'"function"' '/"function":"pairs"/ { if (NF - 1 > max) max = NF - 1 }
		END { print max + 0 }' "$err.stacks"
}

# "time id run_time_ns run_cnt" of every BPF program process $1 holds open.
read_programs() {
	awk -v now="$EPOCHREALTIME" 'FNR == 1 { id = c = "" } /^prog_id:/ { id = $2 }
		/^run_time_ns:/ { t = $2 } /^run_cnt:/ { c = $2 }
		/^run_cnt:/ && id != "" { print now, id, t, c }' /proc/"$1"/fdinfo/* 2>/dev/null || true
}

# One run at depth $1 under tracer command $2...: "name ns_per_call" of each of the
# tracer's programs that ran.
run_once() {
	local pid id depth=$1
	shift
	: >"$samples"
	"$@" -- "${loop[@]}" "$depth" >"$err.out" 2>"$err" &
	pid=$!
	: >"$samples.names"
	while kill -0 "$pid" 2>/dev/null; do
		read_programs "$pid" >>"$samples"
		# Their names (not in fdinfo): one listing of all programs, until all are named.
		if ! awk 'FILENAME == ARGV[1] { named[$1] = 1; next } !($2 in named) { exit 1 }' \
			"$samples.names" "$samples"; then
			bpftool prog show -j 2>/dev/null |
				grep -o '"id":[0-9]*,"type":"[a-z_]*","name":"[a-z_0-9]*"' |
				sed 's/"id":\([0-9]*\).*"name":"\(.*\)"/\1 \2/' >>"$samples.names" || true
		fi
		sleep 0.1
	done
	if ! wait "$pid" || ! grep -q '^ns_per_pair ' "$err.out"; then
		echo "bench: failed: $* -- ${loop[*]} $depth: $(last_words "$err")" >&2
		exit 1
	fi
	# Per program id: (last - first run time) / (last - first run count), the loop's
	# start-up left out; the whole run's when it was read only once.
	awk '$4 > 0 { if (!($2 in c0)) { t0[$2] = $3; c0[$2] = $4 } t1[$2] = $3; c1[$2] = $4 }
	     END { for (id in c0) { if (c1[id] == c0[id]) t0[id] = c0[id] = 0
			printf "%s %.1f\n", id, (t1[id] - t0[id]) / (c1[id] - c0[id]) } }' \
		"$samples" | while read -r id ns; do
		echo "$(awk -v id="$id" '$1 == id { n = $2 } END { print n }' "$samples.names") $ns"
	done
}

base=${BASE_FRAMES:-$(frames_at 0)}
if [ "$base" -gt 7 ]; then
	echo "bench: the loop is $base frames deep at least, not 7" >&2
	exit 1
fi
entry7=() entry20=() ret=() floor=() send=()
for ((r = 1; r <= rounds; r++)); do
	shallow=$(run_once $((7 - base)) "$heaptap" run -o /dev/null)
	deep=$(run_once $((20 - base)) "$heaptap" run -o /dev/null)
	empty=$(run_once $((7 - base)) "$bench/empty_probes")
	sending=$(run_once $((7 - base)) "$bench/empty_probes" --send)
	e7=$(awk '$1 == "alloc_entry" { print $2 }' <<<"$shallow")
	e20=$(awk '$1 == "alloc_entry" { print $2 }' <<<"$deep")
	rt=$(awk '$1 == "alloc_return" { print $2 }' <<<"$shallow")
	fl=$(awk '$1 == "empty_entry" { print $2 }' <<<"$empty")
	sd=$(awk '$1 == "empty_return" { print $2 }' <<<"$sending")
	if [ -z "$e7" ] || [ -z "$e20" ] || [ -z "$rt" ] || [ -z "$fl" ] || [ -z "$sd" ]; then
		echo "bench: failed: no BPF statistics of heaptap's programs ($shallow / $deep)" \
			"(is kernel.bpf_stats_enabled writable?)" >&2
		exit 1
	fi
	entry7+=("$e7") entry20+=("$e20") ret+=("$rt") floor+=("$fl") send+=("$sd")
	echo "round $r/$rounds: alloc_entry $e7 ns (7 frames) $e20 ns (20 frames)" \
		" alloc_return $rt ns  empty $fl ns  send $sd ns" >&2
done
e7=$(printf '%s\n' "${entry7[@]}" | median)
e20=$(printf '%s\n' "${entry20[@]}" | median)
rt=$(printf '%s\n' "${ret[@]}" | median)
fl=$(printf '%s\n' "${floor[@]}" | median)
sd=$(printf '%s\n' "${send[@]}" | median)
echo "heaptap's BPF programs, run time per call (kernel BPF statistics), median of $rounds runs"
printf 'bpf alloc_entry 7-frames %.0f ns\n' "$e7"
printf 'bpf alloc_entry 20-frames %.0f ns\n' "$e20"
awk -v a="$e7" -v b="$e20" 'BEGIN { printf "bpf unwind-per-frame %.0f ns\n", (b - a) / 13 }'
printf 'bpf alloc_return %.0f ns\n' "$rt"
printf 'bpf empty-program %.0f ns (the floor: what measuring a program that does nothing costs)\n' "$fl"
printf 'bpf send-floor %.0f ns (a return program that only sends a record of the call event'"'"'s size)\n' "$sd"
echo "goals: alloc_entry <= 350 ns at 7 frames, <= 800 ns at 20; <= 30 ns a frame;" \
	"alloc_return <= 120 ns"
