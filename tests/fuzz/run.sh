#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Run each fuzzer for SECONDS on its corpus; print its executions and crashes (leaks, hangs
# and running out of memory count as crashes). Exit 1 if any fuzzer found anything.
# Usage: run.sh SECONDS FUZZ_DIR TARGET:SEEDS:MAX_LEN...
set -u
seconds=$1
dir=$2
shift 2
failed=0

for spec in "$@"; do
	target=${spec%%:*}
	rest=${spec#*:}
	seeds=${rest%%:*}
	max_len=${rest#*:}
	corpus=$dir/corpus/$target
	artifacts=$dir/artifacts/$target
	log=$dir/logs/$target.log
	mkdir -p "$corpus" "$artifacts" "$dir/logs"
	before=$(ls "$artifacts" | wc -l)
	# New inputs grow the target's own corpus; the seeds stay as generated.
	# No RSS limit, whose watcher thread makes every munmap of the parsers' file mappings
	# a cross-CPU TLB flush (half the speed in a VM); single allocations stay limited.
	"$dir/$target" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 \
		-rss_limit_mb=0 -malloc_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$artifacts/" \
		"$corpus" "$dir/corpus/seeds/$seeds" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	crashes=$(($(ls "$artifacts" | wc -l) - before))
	if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then
		crashes=1 # it died without writing its input: the log says how
	fi
	printf '  FUZZ     %-20s %12s executions  %d crashes\n' "$target" "${execs:-?}" "$crashes"
	if [ "$crashes" -ne 0 ]; then
		failed=1
		grep -m 3 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" |
			sed 's/^/           /'
		echo "           log: $log; inputs: $artifacts/"
	fi
done
exit $failed
