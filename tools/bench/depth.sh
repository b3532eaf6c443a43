#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The cost of unwinding: the malloc+free loop about 20 calls below main, built without
# frame pointers as a distribution builds code, in one run, interleaved round by round:
#   empty    heaptap's probe set with programs that do nothing (the trap floor), at
#            heaptap's probe sites
#   tables   heaptap run, unwinding by .eh_frame tables (the default)
#   fp       heaptap run --unwind fp: frame pointers only (cheaper, and wrong here)
#   entries  heaptap run with every probe on its function's entry (HEAPTAP_PROBE_AT=entry):
#            what the probe sites save on this loop
# Then what building the tables of an MPI rank's main libraries costs.
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
rounds=${ROUNDS:-7}
depth=${DEPTH:-13} # + pairs, main and the start-up frames: 20 frames
iterations=${DEEP_ITERATIONS:-30000}
. "$(dirname "$0")/timing.sh"

loop=("$bench/malloc_loop_nofp" "$iterations" --depth "$depth")
# How deep the loop's stacks are, as heaptap sees them (frames per --stacks line).
frames=$("$heaptap" run -o /dev/null --stacks "$err.stacks" -- "$bench/malloc_loop_nofp" 10 \
	--depth "$depth" >/dev/null 2>&1 && awk -F'"function"' '{ if (NF - 1 > max) max = NF - 1 }
	END { print max }' "$err.stacks")
empty=() tables=() fp=() entries=()
for ((r = 1; r <= rounds; r++)); do
	e=$(ns "$bench/empty_probes" -- "${loop[@]}")
	t=$(ns "$heaptap" run -o /dev/null -- "${loop[@]}")
	f=$(ns "$heaptap" run --unwind fp -o /dev/null -- "${loop[@]}")
	n=$(HEAPTAP_PROBE_AT=entry ns "$heaptap" run -o /dev/null -- "${loop[@]}")
	empty+=("$e") tables+=("$t") fp+=("$f") entries+=("$n")
	echo "round $r/$rounds (depth $frames frames): empty $e  tables $t  fp $f" \
		" entries $n ns/pair" >&2
done
e=$(printf '%s\n' "${empty[@]}" | median)
t=$(printf '%s\n' "${tables[@]}" | median)
f=$(printf '%s\n' "${fp[@]}" | median)
n=$(printf '%s\n' "${entries[@]}" | median)
echo "malloc+free pairs $frames frames deep, no frame pointers, median of $rounds rounds"
printf 'empty     %.1f ns/pair\n' "$e"
printf 'tables    %.1f ns/pair\n' "$t"
printf 'fp        %.1f ns/pair\n' "$f"
printf 'entries   %.1f ns/pair (tables, every probe on its entry)\n' "$n"
awk -v t="$t" -v e="$e" -v f="$f" -v n="$n" 'BEGIN {
	printf "tables/empty %.2f (target 1.3)\n", t / e
	printf "fp/empty %.2f\n", f / e
	printf "tables/entries %.2f (what the probe sites save)\n", t / n }'

libs=()
for lib in libc.so.6 libmpi.so.40 libopen-pal.so.40 pmix2/lib/libpmix.so.2 libpmix.so.2; do
	path=/usr/lib/x86_64-linux-gnu/$lib
	if [ -e "$path" ]; then
		libs+=("$(readlink -f "$path")")
	fi
done
echo "unwind tables of an MPI rank's main libraries:"
"$bench/unwind_cost" $(printf '%s\n' "${libs[@]}" | sort -u)
