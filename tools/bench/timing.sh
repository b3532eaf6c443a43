# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Shared by the pair benchmarks (sourced): the loop's figure from a run, and medians.

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root to load BPF programs (run it with sudo)" >&2
	exit 1
fi
err=$(mktemp)
trap 'rm -f "$err" "$err.stacks"' EXIT

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
