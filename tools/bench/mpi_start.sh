#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The start of an MPI job (mpirun -np 4 of mpi_start: MPI_Init, allocations, ten
# MPI_Alltoall, MPI_Finalize), wall clock from launch to exit, three ways, interleaved round
# by round so that the machine's noise falls on all three alike:
#   untraced   the job alone
#   empty      the floor: empty_probes --mpi, the probes heaptap places on every rank (the
#              ten allocator entry points of its C library, returns on all but free, the
#              loader's _dl_debug_state) through uprobe_multi links, with programs that
#              do nothing
#   heaptap    heaptap run --mpi
#   entries    heaptap run --mpi with every probe on its function's entry
#              (HEAPTAP_PROBE_AT=entry): what the probe sites change here
# The floor is what any per-process uprobe tracer of these calls must cost: every trap in
# every rank from its first call, and placing the probes. It holds each program the job
# execs once, at exec, for as long as placing its links takes (its stderr says how long:
# a few ms in all), because a per-process probe cannot see a program's first call
# otherwise; it never holds at loader events, and closes links off the job's path (a
# pool of threads, after each process exits). Stops at loader events, table builds,
# symbolization and removing links at the end are heaptap's own cost, which the
# heaptap/empty ratio measures. The floor's exit is timed too: it waits for its links.
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
rounds=${ROUNDS:-5}
ranks=${RANKS:-4}
. "$(dirname "$0")/timing.sh"

if ! command -v mpirun >/dev/null; then
	echo "bench: mpi-start needs mpirun (Debian: openmpi-bin)" >&2
	exit 1
fi
job=(mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$bench/mpi_start")
ok="mpi_start ok $ranks"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$err" "$err.out"' EXIT

wait_for_no_rank_watchers
# Once, untimed: heaptap traces every rank, and the floor probes every rank and sees hits.
elapsed "$ok" "$heaptap" run --mpi -o /dev/null --json "$scratch/job.json" -- "${job[@]}" \
	>/dev/null
traced=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for p in d["processes"] if p["rank"] is not None and not p.get("exec")
          and p["total"]["calls"]["malloc"] > 0))' "$scratch/job.json")
if [ "$traced" != "$ranks" ]; then
	echo "bench: failed: heaptap run --mpi traced $traced of $ranks ranks" >&2
	exit 1
fi

untraced=() empty=() traced=() holds=() entries=()
for ((r = 1; r <= rounds; r++)); do
	wait_for_no_rank_watchers
	u=$(elapsed "$ok" "${job[@]}")
	e=$(elapsed "$ok" "$bench/empty_probes" --mpi -- "${job[@]}")
	expect_err "followed, $ranks probed, [1-9][0-9]* probe hits" "empty_probes --mpi"
	held=$(sed -n 's/.* held \([0-9.]*\) ms in all.*/\1/p' "$err")
	t=$(elapsed "$ok" "$heaptap" run --mpi -o /dev/null -- "${job[@]}")
	n=$(HEAPTAP_PROBE_AT=entry elapsed "$ok" "$heaptap" run --mpi -o /dev/null -- "${job[@]}")
	untraced+=("$u") empty+=("$e") traced+=("$t") holds+=("$held") entries+=("$n")
	echo "round $r/$rounds: untraced $u  empty $e (held $held ms)  heaptap $t s" \
		" entries $n s" >&2
done

u=$(printf '%s\n' "${untraced[@]}" | median)
e=$(printf '%s\n' "${empty[@]}" | median)
t=$(printf '%s\n' "${traced[@]}" | median)
h=$(printf '%s\n' "${holds[@]}" | median)
n=$(printf '%s\n' "${entries[@]}" | median)
echo "mpirun -np $ranks start (MPI_Init, 10 Alltoall, MPI_Finalize)," \
	"median of $rounds interleaved rounds"
printf 'untraced  %.2f s\n' "$u"
printf 'empty     %.2f s (of which held at exec: %.1f ms)\n' "$e" "$h"
printf 'heaptap   %.2f s\n' "$t"
printf 'entries   %.2f s (heaptap, every probe on its entry)\n' "$n"
awk -v t="$t" -v e="$e" -v u="$u" -v n="$n" 'BEGIN {
	printf "mpi-start heaptap/entries %.2f\n", t / n
	printf "mpi-start empty/untraced %.1f\n", e / u
	printf "mpi-start heaptap/untraced %.1f\n", t / u
	printf "mpi-start heaptap/empty %.2f\n", t / e }'
