#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# What joining and leaving processes costs, median of interleaved rounds:
#   attach    heaptap attach -p to 1 idle process, and to 100 (sleep, which maps the same
#             C library and loader): time from start to the "attached to PID <last>" line.
#             (T100 - T1) / 99 is what one more process costs once its files are probed
#             (T1 also pays for loading BPF and reading the files).
#   detach    SIGINT to heaptap's exit, with 1 and with 100 processes attached.
#   removed   without uprobe_multi links, where heaptap's probes are uprobe events of
#             tracefs: heaptap's exit to their removal by the child it leaves them to (it
#             drops the last references, which wait for grace periods). The next round
#             starts after it: a heaptap started meanwhile waits for it (at most 10 s)
#             before it probes anything, and its attach would count that wait.
#   follow    run --follow of a shell running 100 short commands (/bin/true) one after
#             another: untraced, under the floor (empty_probes --follow: heaptap's probes on
#             every process, programs that do nothing, each program held once at exec
#             while its links are placed, links closed by a pool of threads), and under
#             heaptap. Every process is probed either way; the bench checks it.
# FOLLOW=0 leaves follow out (tools/vm/attach_cost.sh: on kernels empty_probes cannot
# probe, without uprobe_multi links).
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
follow=${FOLLOW:-1}
bench=${BENCH_DIR:-.output/bench}
rounds=${ROUNDS:-5}
procs=${PROCS:-100}
commands=${COMMANDS:-100}
. "$(dirname "$0")/timing.sh"

scratch=$(mktemp -d)
sleepers=()
cleanup() {
	[ ${#sleepers[@]} -eq 0 ] || kill "${sleepers[@]}" 2>/dev/null || true
	rm -rf "$scratch" "$err" "$err.out"
}
trap cleanup EXIT

for ((i = 0; i < procs; i++)); do
	sleep 100000 &
	sleepers+=($!)
done

fail() {
	echo "bench: failed: $*" >&2
	exit 1
}

# Seconds until heaptap hpid's uprobe events are gone from tracefs, from now (0 if it
# had none); at most 30.
events=/sys/kernel/tracing/uprobe_events
removal() {
	local hpid=$1 start=$EPOCHREALTIME
	[ -r "$events" ] || { echo 0; return; }
	for ((i = 0; i < 3000; i++)); do
		grep -q "heaptap_$hpid/" "$events" || break
		sleep 0.01
	done
	awk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.3f", e - s }'
}

# heaptap attach to the first n sleepers: sets attach_s (start to the last "attached"
# line), detach_s (SIGINT to exit) and removed_s (exit to its events' removal).
attach_detach() {
	local n=$1 log=$scratch/attach.log list last start stamp interrupted status=0 hpid
	list=$(IFS=,; echo "${sleepers[*]:0:n}")
	last=${sleepers[n - 1]}
	: >"$log"
	start=$EPOCHREALTIME
	# Each line of its stderr stamped when it comes out.
	"$heaptap" attach -o /dev/null -p "$list" \
		2> >(while IFS= read -r line; do echo "$EPOCHREALTIME $line"; done >"$log") &
	hpid=$!
	for ((i = 0; i < 6000; i++)); do
		grep -q "attached to PID $last\$" "$log" && break
		kill -0 "$hpid" 2>/dev/null || fail "heaptap attach -p ($n processes): $(tail -1 "$log")"
		sleep 0.01
	done
	stamp=$(awk -v p="attached to PID $last" 'index($0, p) { print $1; exit }' "$log")
	[ -n "$stamp" ] || { kill "$hpid"; fail "heaptap attach -p ($n processes): no attached line"; }
	interrupted=$EPOCHREALTIME
	kill -INT "$hpid"
	wait "$hpid" || status=$?
	detach_s=$(awk -v s="$interrupted" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.3f", e - s }')
	removed_s=$(removal "$hpid")
	attach_s=$(awk -v s="$start" -v e="$stamp" 'BEGIN { printf "%.4f", e - s }')
	[ "$status" -eq 0 ] || fail "heaptap attach -p ($n processes) exited $status: $(tail -1 "$log")"
	kill -0 "${sleepers[@]:0:n}" 2>/dev/null || fail "a process died while heaptap attached to it"
}

loop="i=0; while [ \$i -lt $commands ]; do /bin/true; i=\$((i + 1)); done; echo loop-done"
# Once, untimed: heaptap traces the shell and every command (the images a process left by
# exec, reported apart, do not count).
[ "$follow" = 0 ] || elapsed loop-done "$heaptap" run --follow -o /dev/null --json "$scratch/follow.json" -- \
	sh -c "$loop" >/dev/null
if [ "$follow" != 0 ]; then
	traced=$(python3 -c 'import json, sys
print(sum(1 for p in json.load(open(sys.argv[1]))["processes"] if not p.get("exec")))' \
		"$scratch/follow.json")
	[ "$traced" -eq $((commands + 1)) ] ||
		fail "heaptap run --follow traced $traced of $((commands + 1)) processes"
fi

a1=() a100=() slope=() d1=() d100=() r1=() r100=() fu=() fe=() ft=()
for ((r = 1; r <= rounds; r++)); do
	attach_detach 1
	a1+=("$attach_s") d1+=("$detach_s") r1+=("$removed_s")
	attach_detach "$procs"
	a100+=("$attach_s") d100+=("$detach_s") r100+=("$removed_s")
	slope+=("$(awk -v a="${a1[-1]}" -v b="$attach_s" -v n="$procs" \
		'BEGIN { printf "%.3f", 1000 * (b - a) / (n - 1) }')")
	if [ "$follow" = 0 ]; then
		echo "round $r/$rounds: attach 1 ${a1[-1]} s, $procs $attach_s s" \
			"(${slope[-1]} ms each); detach 1 ${d1[-1]} s, $procs $detach_s s;" \
			"removed after exit ${r1[-1]} s, $removed_s s" >&2
		continue
	fi
	u=$(elapsed loop-done sh -c "$loop")
	e=$(elapsed loop-done "$bench/empty_probes" --follow -- sh -c "$loop")
	expect_err "$((commands + 1)) processes followed, $((commands + 1)) probed, [1-9]" \
		"empty_probes --follow"
	held=$(sed -n 's/.* held \([0-9.]*\) ms in all.*/\1/p' "$err")
	t=$(elapsed loop-done "$heaptap" run --follow -o /dev/null -- sh -c "$loop")
	fu+=("$u") fe+=("$e") ft+=("$t")
	echo "round $r/$rounds: attach 1 ${a1[-1]} s, $procs $attach_s s (${slope[-1]} ms each);" \
		"detach 1 ${d1[-1]} s, $procs $detach_s s;" \
		"removed after exit ${r1[-1]} s, $removed_s s;" \
		"follow: untraced $u empty $e (held $held ms) heaptap $t s" >&2
done

med() { printf '%s\n' "$@" | median; }
echo "attach and detach, median of $rounds rounds"
printf 'attach to 1 process      %.3f s\n' "$(med "${a1[@]}")"
printf 'attach to %d processes  %.3f s\n' "$procs" "$(med "${a100[@]}")"
printf 'detach from 1 process    %.3f s\n' "$(med "${d1[@]}")"
printf 'attach-per-process-ms %.2f\n' "$(med "${slope[@]}")"
printf 'detach-%d-s %.2f\n' "$procs" "$(med "${d100[@]}")"
printf 'removed-after-exit-1-s %.2f\n' "$(med "${r1[@]}")"
printf 'removed-after-exit-%d-s %.2f\n' "$procs" "$(med "${r100[@]}")"
[ "$follow" != 0 ] || exit 0
u=$(med "${fu[@]}") e=$(med "${fe[@]}") t=$(med "${ft[@]}")
echo "run --follow of $commands sequential /bin/true, median of $rounds interleaved rounds"
printf 'untraced  %.2f s\n' "$u"
printf 'empty     %.2f s\n' "$e"
printf 'heaptap   %.2f s\n' "$t"
awk -v t="$t" -v e="$e" -v u="$u" -v n="$commands" 'BEGIN {
	printf "follow-%d empty/untraced %.1f\n", n, e / u
	printf "follow-%d heaptap-empty %.1f ms per command\n", n, 1000 * (t - e) / n
	printf "follow-%d heaptap/empty %.2f\n", n, t / e }'
