#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# A node's ranks starting together: mpirun -np 16 of mpi_start (MPI_Init, allocations, ten
# MPI_Alltoall, MPI_Finalize), untraced and under heaptap run --mpi, interleaved round by
# round, medians. From heaptap's JSON report, each round: the events lost and the calls
# with incomplete stacks over all ranks (both must be 0), heaptap's own CPU (consumers.
# cpu_seconds: every thread of heaptap's, none of the job's, which perf stat --no-inherit
# would miss for the consumer threads) and the time its ranks were held at exec and loader
# events (consumers.holds), each per rank. And the floor, as in mpi_start.sh: the same
# probes on every rank with programs that do nothing (empty_probes --mpi), whose ratio to
# the untraced job no tracer of every call through per-process uprobes can go below.
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
rounds=${ROUNDS:-3}
ranks=${RANKS:-16}
. "$(dirname "$0")/timing.sh"

if ! command -v mpirun >/dev/null; then
	echo "bench: mpi-burst needs mpirun (Debian: openmpi-bin)" >&2
	exit 1
fi
job=(mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$bench/mpi_start")
ok="mpi_start ok $ranks"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$err" "$err.out"' EXIT

untraced=() empty=() traced=() lost=() incomplete=() cpu=() held=()
for ((r = 1; r <= rounds; r++)); do
	wait_for_no_rank_watchers
	u=$(elapsed "$ok" "${job[@]}")
	e=$(elapsed "$ok" "$bench/empty_probes" --mpi -- "${job[@]}")
	expect_err "followed, $ranks probed, [1-9][0-9]* probe hits" "empty_probes --mpi"
	t=$(elapsed "$ok" "$heaptap" run --mpi -o /dev/null --json "$scratch/job.json" -- \
		"${job[@]}")
	read -r l i c h < <(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
ranks = [p for p in d["processes"] if p["rank"] is not None and not p.get("exec")]
if len(ranks) != int(sys.argv[2]):
    sys.exit("bench: failed: heaptap run --mpi traced %d of %s ranks" % (len(ranks), sys.argv[2]))
c = d["consumers"]
print(sum(p["lost_events"] for p in ranks), sum(p["incomplete_stacks"] for p in ranks),
      c["cpu_seconds"] * 1000 / len(ranks), c["holds"]["total_ms"] / len(ranks))' \
		"$scratch/job.json" "$ranks")
	untraced+=("$u") empty+=("$e") traced+=("$t") lost+=("$l") incomplete+=("$i")
	cpu+=("$c") held+=("$h")
	echo "round $r/$rounds: untraced $u s  empty $e s  heaptap $t s  lost $l  incomplete $i" \
		" heaptap CPU $c ms/rank  held $h ms/rank" >&2
done

u=$(printf '%s\n' "${untraced[@]}" | median)
e=$(printf '%s\n' "${empty[@]}" | median)
t=$(printf '%s\n' "${traced[@]}" | median)
echo "mpirun -np $ranks start (MPI_Init, 10 Alltoall, MPI_Finalize), median of $rounds" \
	"interleaved rounds"
printf 'untraced  %.2f s\nempty     %.2f s\nheaptap   %.2f s\n' "$u" "$e" "$t"
echo "mpi-start np$ranks lost $(printf '%s\n' "${lost[@]}" | median)"
echo "mpi-start np$ranks incomplete $(printf '%s\n' "${incomplete[@]}" | median)"
awk -v t="$t" -v e="$e" -v u="$u" -v r="$ranks" 'BEGIN {
	printf "mpi-start np%d heaptap/untraced %.1f\n", r, t / u
	printf "mpi-start np%d empty/untraced %.1f\n", r, e / u
	printf "mpi-start np%d heaptap/empty %.2f\n", r, t / e }'
printf 'mpi-start np%d heaptap-cpu-per-rank %.0f ms\n' "$ranks" \
	"$(printf '%s\n' "${cpu[@]}" | median)"
printf 'mpi-start np%d hold-per-rank %.1f ms\n' "$ranks" "$(printf '%s\n' "${held[@]}" | median)"
