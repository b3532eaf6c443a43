#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The JSON report of an MPI job (heaptap run --mpi --json of mpi_start, as mpi_start.sh
# runs it, at 2 and 4 ranks): its bytes per rank (the 4-rank report's size over its
# ranks), and how fast heaptap reads it back: the file's megabytes (10^6 bytes) over the
# wall clock of each reader, median of five runs: the job's summary (report), every call
# tree (report --tree), compare of the two reports, and the page (report --html). The
# read-speed line is the slowest of the first three; html-speed the page's, which is most
# of it writing the page (several times the report's size).
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
rounds=${ROUNDS:-5}
. "$(dirname "$0")/timing.sh"

if ! command -v mpirun >/dev/null; then
	echo "bench: report-size needs mpirun (Debian: openmpi-bin)" >&2
	exit 1
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$err" "$err.out"' EXIT

wait_for_no_rank_watchers
for n in 2 4; do
	elapsed "mpi_start ok $n" "$heaptap" run --mpi -o /dev/null --json "$scratch/np$n.json" -- \
		mpirun --allow-run-as-root --oversubscribe -np "$n" "$bench/mpi_start" >/dev/null
done
ranks=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for p in d["processes"] if p["rank"] is not None and not p.get("exec")))' \
	"$scratch/np4.json")
if [ "$ranks" != 4 ]; then
	echo "bench: failed: heaptap run --mpi reported $ranks of 4 ranks" >&2
	exit 1
fi
bytes=$(stat -c %s "$scratch/np4.json")
both=$(($(stat -c %s "$scratch/np2.json") + bytes))

# Median seconds of a reader over the rounds; its output must match want.
read_time() {
	local want=$1 r times=()
	shift
	for ((r = 0; r < rounds; r++)); do
		times+=("$(elapsed "$want" "$@")")
	done
	printf '%s\n' "${times[@]}" | median
}
summary=$(read_time 'job summary' "$heaptap" report "$scratch/np4.json")
tree=$(read_time 'Call tree' "$heaptap" report "$scratch/np4.json" --tree)
page=$(read_time '^page$' bash -c '"$0" report "$1" --html "$2" && echo page' "$heaptap" \
	"$scratch/np4.json" "$scratch/np4.html")
compare=$(read_time 'MPI_Init' "$heaptap" compare "$scratch/np2.json" "$scratch/np4.json" \
	--under MPI_Init --depth 2)
echo "report of mpirun -np 4 mpi_start: $bytes bytes, $ranks ranks"
awk -v b="$bytes" -v all="$both" -v s="$summary" -v t="$tree" -v h="$page" -v c="$compare" \
	-v ranks="$ranks" 'BEGIN {
	printf "report (summary)  %.3f s  %.1f MB/s\n", s, b / 1e6 / s
	printf "report --tree     %.3f s  %.1f MB/s\n", t, b / 1e6 / t
	printf "report --html     %.3f s  %.1f MB/s\n", h, b / 1e6 / h
	printf "compare np2 np4   %.3f s  %.1f MB/s\n", c, all / 1e6 / c
	slow = b / 1e6 / s
	if (b / 1e6 / t < slow) slow = b / 1e6 / t
	if (all / 1e6 / c < slow) slow = all / 1e6 / c
	printf "report bytes-per-rank %d\n", b / ranks
	printf "report html-speed %.1f MB/s\n", b / 1e6 / h
	printf "report read-speed %.1f MB/s\n", slow }'
