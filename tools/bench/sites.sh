#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# What a probe's site costs, per entry point of the C library: a loop of calls to that one
# function (entry_loop), untraced, then under empty probes on it alone (entry and return
# probes, free: entry only) at the function's first instruction (--entries, where every
# other tracer probes) and at heaptap's site (heaptap sites). Interleaved round by round,
# medians. Then what a single-stepped hit costs over an emulated one on this machine,
# from free: its first instruction (test, stepped out of line) against its site (je,
# emulated), one probe each, the call's own cost taken out.
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
rounds=${SITE_ROUNDS:-3}
traced_n=${SITE_ITERATIONS:-20000}
untraced_n=${SITE_UNTRACED_ITERATIONS:-2000000}
. "$(dirname "$0")/timing.sh"

funcs=(malloc calloc realloc reallocarray free memalign aligned_alloc posix_memalign valloc pvalloc)
# Each entry point's site offset past its entry, from heaptap sites.
declare -A skip
while read -r name at; do skip[$name]=$at; done < <("$heaptap" sites | awk '
	/^[a-z_]+ at 0x[0-9a-f]+: probe at/ { s = 0; if (match($0, /\(\+[0-9]+\)/))
		s = substr($0, RSTART + 2, RLENGTH - 3); print $1, s }
	/^[a-z_]+: the same function as/ { sub(":", "", $1); print $1, "=" $6 }')

declare -A untraced entry sited
for ((r = 1; r <= rounds; r++)); do
	for f in "${funcs[@]}"; do
		u=$(ns_call "$bench/entry_loop" "$f" "$untraced_n")
		e=$(ns_call "$bench/empty_probes" --entries --only "$f" -- "$bench/entry_loop" "$f" \
			"$traced_n")
		s=$(ns_call "$bench/empty_probes" --only "$f" -- "$bench/entry_loop" "$f" "$traced_n")
		untraced[$f]+="$u " entry[$f]+="$e " sited[$f]+="$s "
	done
	echo "round $r/$rounds done" >&2
done

med() { tr ' ' '\n' <<<"$1" | grep . | median; }
echo "one entry point in a loop, empty probes on it alone, median of $rounds interleaved rounds"
printf '%-15s %6s %12s %12s %12s %7s\n' function site untraced at-entry at-site site/entry
for f in "${funcs[@]}"; do
	u=$(med "${untraced[$f]}") e=$(med "${entry[$f]}") s=$(med "${sited[$f]}")
	at=${skip[$f]:-?}
	[ "${at:0:1}" = "=" ] && at=${skip[${at:1}]:-?} # an alias: its function's site
	[ "$at" = 0 ] && at=entry || at="+$at"
	awk -v f="$f" -v at="$at" -v u="$u" -v e="$e" -v s="$s" 'BEGIN {
		printf "%-15s %6s %9.1f ns %9.1f ns %9.1f ns %7.2f\n", f, at, u, e, s, s / e }'
done
fu=$(med "${untraced[free]}") fe=$(med "${entry[free]}") fs=$(med "${sited[free]}")
awk -v u="$fu" -v e="$fe" -v s="$fs" 'BEGIN {
	printf "single-stepped hit %.0f ns, emulated hit %.0f ns (free entry vs site)\n", e - u, s - u
	printf "single-step/emulated %.1f\n", (e - u) / (s - u) }'
