#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# What one live block costs heaptap: its RSS under run of a program holding BLOCKS blocks
# (default 1,000,000) minus its RSS under the same program holding none, divided by the
# blocks its live-block table kept, median of a few rounds. Prints
# "owner: N bytes per live block".
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
rounds=${ROUNDS:-3}
blocks=${BLOCKS:-1000000}
. "$(dirname "$0")/timing.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$err"' EXIT

fail() {
	echo "bench: failed: $*" >&2
	exit 1
}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# heaptap's RSS (KiB) once it has read every event of a program holding n blocks, and the
# blocks it kept: "RSS KEPT".
held() {
	local n=$1 tracer child rss last=-1 steady=0 kept lost i
	rm -f "$scratch/ready"
	"$heaptap" run --json "$scratch/report.json" -o /dev/null -- \
		"$bench/hold_blocks" "$n" "$scratch/ready" 2>"$err" &
	tracer=$!
	for ((i = 0; i < 600; i++)); do
		[ -s "$scratch/ready" ] && break
		sleep 0.1
	done
	[ -s "$scratch/ready" ] || fail "hold_blocks $n never got ready: $(last_words "$err")"
	child=$(cat "$scratch/ready")
	# Its events may still be on their way: wait until heaptap's RSS stops moving.
	while ((steady < 5)); do
		sleep 0.2
		rss=$(rss_kib "$tracer")
		if [ "$rss" = "$last" ]; then steady=$((steady + 1)); else steady=0; fi
		last=$rss
	done
	kill -USR1 "$child"
	wait "$tracer" || fail "heaptap run of hold_blocks $n: $(last_words "$err")"
	kept=$(grep -o '"kept": *[0-9]*' "$scratch/report.json" | tr -dc '0-9')
	lost=$(grep -o '"lost_events": *[0-9]*' "$scratch/report.json" | tr -dc '0-9')
	[ "$lost" = 0 ] || echo "bench: warning: $lost events lost holding $n blocks" >&2
	echo "$rss $kept"
}

figures=()
for ((r = 1; r <= rounds; r++)); do
	none=$(held 0)
	many=$(held "$blocks")
	read -r rss0 kept0 <<<"$none"
	read -r rss1 kept1 <<<"$many"
	((kept1 > kept0)) || fail "heaptap kept no blocks of hold_blocks $blocks"
	f=$(awk -v a="$rss0" -v b="$rss1" -v k0="$kept0" -v k1="$kept1" \
		'BEGIN { printf "%.1f", (b - a) * 1024 / (k1 - k0) }')
	echo "round $r/$rounds: $kept1 blocks kept, heaptap RSS $rss0 -> $rss1 KiB: $f B/block" >&2
	figures+=("$f")
done
printf 'owner: %.1f bytes per live block (goal <= 48), %d blocks held, median of %d\n' \
	"$(printf '%s\n' "${figures[@]}" | median)" "$blocks" "$rounds"
