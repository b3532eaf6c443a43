# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Shared by the pair benchmarks (sourced): the loop's figure from a run, and medians.

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root to load BPF programs (run it with sudo)" >&2
	exit 1
fi
err=$(mktemp)
trap 'rm -f "$err" "$err.stacks" "$err.out"' EXIT

# The loop's own figure from a command's output; a run without one stops the bench.
ns() {
	local out
	if ! out=$("$@" 2>"$err") || ! grep -q '^ns_per_pair ' <<<"$out"; then
		echo "bench: failed: $*" >&2
		tail -5 "$err" >&2
		exit 1
	fi
	awk '/^ns_per_pair / { print $2 }' <<<"$out"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The last line of a file that says something (mpirun frames its messages with dashes).
last_words() { grep '[[:alnum:]]' "$1" 2>/dev/null | tail -1; }

# The wall-clock seconds a command takes. Its standard output must match the extended
# regular expression want (the command did its work); a run that fails or does not stops
# the bench with one line. Its standard error stays in "$err" for the caller's checks.
elapsed() {
	local want=$1 start end status=0
	shift
	start=$EPOCHREALTIME
	"$@" >"$err.out" 2>"$err" || status=$?
	end=$EPOCHREALTIME
	if [ "$status" -ne 0 ] || ! grep -Eq "$want" "$err.out"; then
		echo "bench: failed (exit $status): $*: $(last_words "$err")" >&2
		exit 1
	fi
	awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}

# Stop the bench with one line unless the last command's standard error matches want.
expect_err() {
	if ! grep -Eq "$1" "$err"; then
		echo "bench: failed: $2: $(last_words "$err")" >&2
		exit 1
	fi
}

# Another heaptap watching for MPI ranks (attach/top/agent --mpi, a test perhaps) would
# trace this bench's ranks too: wait until none runs, up to a minute, and say so.
wait_for_no_rank_watchers() {
	local i
	for ((i = 0; i < 600; i++)); do
		ps -eo args= | grep -Eq '^[^ ]*heaptap (attach|top|agent) .*--mpi' || return 0
		[ "$i" -eq 0 ] && echo "bench: waiting: another heaptap watches for MPI ranks" >&2
		sleep 0.1
	done
	echo "bench: warning: another heaptap watches for MPI ranks: figures may be off" >&2
}

# The same for the loops that print "ns_per_call X" (entry_loop).
ns_call() {
	local out
	if ! out=$("$@" 2>"$err") || ! grep -q '^ns_per_call ' <<<"$out"; then
		echo "bench: failed: $*" >&2
		tail -5 "$err" >&2
		exit 1
	fi
	awk '/^ns_per_call / { print $2 }' <<<"$out"
}
