#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# --sample-bytes 512K (the agent's default) on the malloc(64)+free loop, where nearly no
# call is sampled (p = 1.2e-4 a malloc):
#   bpf sampled unsampled-pair X ns   heaptap's BPF run time per malloc+free pair (kernel BPF
#                                     statistics, read from /proc/PID/fdinfo as bpf_cost.sh
#                                     does): every alloc_* program's time, and sampled_free's,
#                                     over the pairs (entry runs / 2; with session uprobes the
#                                     few sampled returns count among them too: under 0.02%)
#   sampled heaptap/sited-empty X     the pair under heaptap next to the empty probes at
#                                     heaptap's sites (run.sh), rounds interleaved
# each with session uprobes where the kernel has them, and without (the return program's
# early exit: HEAPTAP_NO_SESSION_UPROBES=1). Medians of ROUNDS rounds.
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
rounds=${ROUNDS:-5}
traced_n=${TRACED_ITERATIONS:-200000}
# The BPF statistics' runs: long enough to be read several times (every 0.1 s).
bpf_n=${BPF_ITERATIONS:-1000000}
. "$(dirname "$0")/timing.sh"

stats_before=$(sysctl -n kernel.bpf_stats_enabled)
samples=$(mktemp)
restore() {
	sysctl -q kernel.bpf_stats_enabled="$stats_before" || true
	rm -f "$err" "$err.out" "$samples" "$samples.names"
}
trap restore EXIT
trap 'exit 130' INT TERM

session=$("$heaptap" --version | awk '/session uprobes/ { print $NF }')

# "time id run_time_ns run_cnt" of every BPF program process $1 holds open.
read_programs() {
	awk -v now="$EPOCHREALTIME" 'FNR == 1 { id = c = "" } /^prog_id:/ { id = $2 }
		/^run_time_ns:/ { t = $2 } /^run_cnt:/ { c = $2 }
		/^run_cnt:/ && id != "" { print now, id, t, c }' /proc/"$1"/fdinfo/* 2>/dev/null || true
}

# "name run_time_ns run_cnt" of each BPF program command $@ holds open while it runs the
# loop (kernel BPF statistics, between the first and the last reading: start-up left out).
bpf_run() {
	local pid
	# On for these runs only: the statistics cost every program run ~50 ns, which the
	# wall-clock rounds must not pay.
	sysctl -q kernel.bpf_stats_enabled=1
	: >"$samples"
	: >"$samples.names"
	"$@" -- chrt -f 10 "$bench/malloc_loop" "$bpf_n" >"$err.out" 2>"$err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		read_programs "$pid" >>"$samples"
		if ! awk 'FILENAME == ARGV[1] { named[$1] = 1; next } !($2 in named) { exit 1 }' \
			"$samples.names" "$samples"; then
			bpftool prog show -j 2>/dev/null |
				grep -o '"id":[0-9]*,"type":"[a-z_]*","name":"[a-z_0-9]*"' |
				sed 's/"id":\([0-9]*\).*"name":"\(.*\)"/\1 \2/' >>"$samples.names" || true
		fi
		sleep 0.1
	done
	sysctl -q kernel.bpf_stats_enabled="$stats_before"
	if ! wait "$pid" || ! grep -q '^ns_per_pair ' "$err.out"; then
		echo "bench: failed: $*: $(last_words "$err")" >&2
		exit 1
	fi
	awk 'FILENAME == ARGV[1] { name[$1] = $2; next }
	     $4 > 0 { if (!($2 in c0)) { t0[$2] = $3; c0[$2] = $4 } t1[$2] = $3; c1[$2] = $4 }
	     END { for (id in c0) print name[id], t1[id] - t0[id], c1[id] - c0[id] }' \
		"$samples.names" "$samples"
}

# heaptap's BPF ns per pair under env $@: every alloc_* program's time (and free's own,
# sampled_free, with session uprobes) over the pairs.
bpf_pair() {
	bpf_run env "$@" "$heaptap" run --sample-bytes 512K -o /dev/null |
		awk '$1 ~ /^alloc_/ || $1 == "sampled_free" { time += $2 }
		     $1 == "alloc_entry" || $1 == "alloc_session" || $1 == "sampled_free" {
			calls += $3 }
		     END { if (calls > 0) printf "%.1f\n", time / (calls / 2) }'
}

# What measuring one program run costs: the empty programs' ns per run.
bpf_floor() {
	bpf_run "$bench/empty_probes" |
		awk '$1 ~ /^empty_/ { time += $2; calls += $3 }
		     END { if (calls > 0) printf "%.1f\n", time / calls }'
}

sited=() with=() without=() bpf_with=() bpf_without=() floors=()
for ((r = 1; r <= rounds; r++)); do
	e=$(ns "$bench/empty_probes" -- "$bench/malloc_loop" "$traced_n")
	t=$(ns "$heaptap" run --sample-bytes 512K -o /dev/null -- "$bench/malloc_loop" "$traced_n")
	n=$(HEAPTAP_NO_SESSION_UPROBES=1 ns "$heaptap" run --sample-bytes 512K -o /dev/null -- \
		"$bench/malloc_loop" "$traced_n")
	b=$(bpf_pair HEAPTAP_BENCH=1)
	bn=$(bpf_pair HEAPTAP_NO_SESSION_UPROBES=1)
	fl=$(bpf_floor)
	if [ -z "$b" ] || [ -z "$bn" ] || [ -z "$fl" ]; then
		echo "bench: failed: no BPF statistics of heaptap's programs" >&2
		exit 1
	fi
	sited+=("$e") with+=("$t") without+=("$n") bpf_with+=("$b") bpf_without+=("$bn")
	floors+=("$fl")
	echo "round $r/$rounds: sited-empty $e  sampled $t (session) $n (without) ns/pair;" \
		"BPF $b (session) $bn (without) ns/pair, $fl ns an empty program's run" >&2
done
e=$(printf '%s\n' "${sited[@]}" | median)
t=$(printf '%s\n' "${with[@]}" | median)
n=$(printf '%s\n' "${without[@]}" | median)
b=$(printf '%s\n' "${bpf_with[@]}" | median)
bn=$(printf '%s\n' "${bpf_without[@]}" | median)
fl=$(printf '%s\n' "${floors[@]}" | median)
echo "--sample-bytes 512K, malloc(64)+free pairs, median of $rounds interleaved rounds" \
	"(session uprobes on this kernel: $session)"
# A pair is two program runs with session uprobes (malloc's and free's entries), three
# without (and malloc's return): what measuring them costs is part of the figure.
printf 'bpf sampled unsampled-pair %.0f ns (session uprobes), %.0f ns (without); goal <= 80\n' \
	"$b" "$bn"
awk -v b="$b" -v n="$bn" -v f="$fl" 'BEGIN {
	printf "bpf empty-program %.0f ns a run (the floor of measuring): net of it, an unsampled", f
	printf " pair %.0f ns (session uprobes), %.0f ns (without)\n", b - 2 * f, n - 3 * f }'
awk -v t="$t" -v n="$n" -v e="$e" 'BEGIN {
	printf "sampled heaptap/sited-empty %.2f (session uprobes; goal <= 0.8)\n", t / e
	printf "sampled heaptap/sited-empty %.2f (without; goal <= 1.05)\n", n / e }'
