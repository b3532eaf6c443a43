#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# The cluster's figures:
#   ingest  a collector fed by simulated agents on loopback (tools/bench/ingest.c):
#           AGENTS x RANKS ranks at 1 Hz, GROUPS changed groups each per batch; its CPU
#           and the database's growth per rank-hour.
#           The same job into PostgreSQL (a server the bench starts, with the settings of
#           tools/docs/postgresql.md) through PG_COLLECTORS (2) collectors at once: their CPU
#           next to SQLite's collector, and the server's.
#   agent   heaptap's own CPU per traced rank, agent (1 Hz to a collector) next to attach,
#           on RANKS_TRACED idle ranks (groundtruth --park: 4 threads, 13 functions) and on
#           RANKS_TRACED busy ones (malloc_loop, a malloc+free pair after another).
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
targets=${TARGETS:-.output/targets}
agents=${AGENTS:-100}
ranks=${RANKS:-100}
groups=${GROUPS_PER_RANK:-20}
seconds=${SECONDS_MEASURED:-120}
traced=${RANKS_TRACED:-4}
window=${WINDOW:-20}

if [ "$(id -u)" -ne 0 ]; then
	echo "bench: needs root to load BPF programs (run it with sudo)" >&2
	exit 1
fi
scratch=$(mktemp -d)
pids=()
cleanup() {
	[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
	rm -rf "$scratch"
}
trap cleanup EXIT

# A collector on a free port (into $2, else NAME.sqlite): sets collector (pid) and endpoint.
start_collector() {
	"$heaptap" collect --listen 127.0.0.1:0 --db "${2:-$scratch/$1.sqlite}" \
		2>"$scratch/$1.err" &
	collector=$!
	pids+=("$collector")
	for _ in $(seq 100); do
		grep -q 'collecting on' "$scratch/$1.err" && break
		sleep 0.1
	done
	endpoint=$(sed -n 's/.*collecting on //p' "$scratch/$1.err")
	[ -n "$endpoint" ] || { echo "bench: the collector did not start" >&2; exit 1; }
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

start_collector ingest
"$bench/ingest" "$endpoint" "$collector" "$scratch/ingest.sqlite" "$agents" "$ranks" \
	"$groups" "$seconds" | tee "$scratch/ingest.out"
kill "$collector"
wait "$collector" 2>/dev/null || true

# The same job into PostgreSQL: a server of the bench's own, initdb and postgres run as
# nobody on 127.0.0.1 and a socket in the scratch directory, stopped after; the agents dealt
# to PG_COLLECTORS collectors writing at once; the server's CPU next to theirs.
pg_bin=/usr/lib/postgresql/15/bin
pg_collectors=${PG_COLLECTORS:-2}
# A site's server sized for the job (tools/docs/postgresql.md): the tables in its buffers, a
# checkpoint every quarter hour rather than every gigabyte of log.
# PG_SETTINGS="" measures PostgreSQL's defaults.
pg_tuned="-c shared_buffers=1GB -c wal_buffers=64MB -c max_wal_size=8GB"
pg_tuned+=" -c checkpoint_timeout=15min -c wal_compression=lz4"
read -ra pg_settings <<<"${PG_SETTINGS-$pg_tuned}"
if [ ! -x "$pg_bin/postgres" ]; then
	echo "bench: $pg_bin/postgres is missing: make deps-test installs Debian's postgresql" >&2
	exit 1
fi
chmod 711 "$scratch"
mkdir "$scratch/pg"
chown nobody:nogroup "$scratch/pg"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_nobody "$pg_bin/initdb" -D "$scratch/pg/data" -A trust -U heaptap >"$scratch/pg.log" 2>&1 ||
	{ echo "bench: PostgreSQL's initdb failed: $(tail -1 "$scratch/pg.log")" >&2; exit 1; }
pg_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0));
print(s.getsockname()[1])')
# setpriv executes postgres in its own process: $! is the server's pid.
setpriv --reuid=65534 --regid=65534 --clear-groups "$pg_bin/postgres" -D "$scratch/pg/data" \
	-h 127.0.0.1 -k "$scratch/pg" -p "$pg_port" "${pg_settings[@]}" >>"$scratch/pg.log" 2>&1 &
pg_pid=$!
pids+=("$pg_pid")
for _ in $(seq 100); do
	"$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" && break
	sleep 0.1
done
"$pg_bin/psql" -q -h 127.0.0.1 -p "$pg_port" -U heaptap -d postgres -c 'CREATE DATABASE heaptap' ||
	{ echo "bench: PostgreSQL did not start: $(tail -1 "$scratch/pg.log")" >&2; exit 1; }
pg_url=postgresql://heaptap@127.0.0.1:$pg_port/heaptap
pg_endpoints=() pg_collector_pids=()
for ((i = 0; i < pg_collectors; i++)); do
	start_collector "ingest_pg$i" "$pg_url"
	pg_endpoints+=("$endpoint")
	pg_collector_pids+=("$collector")
done
echo "PostgreSQL 15, ${pg_settings[*]:-its default settings}:"
"$bench/ingest" "$(IFS=,; echo "${pg_endpoints[*]}")" "$(IFS=,; echo "${pg_collector_pids[*]}")" \
	"$pg_url" "$agents" "$ranks" "$groups" "$seconds" "$pg_pid" | tee "$scratch/ingest_pg.out"
# The targets: the collectors' CPU within 1.3 x SQLite's, the server under one core.
awk '/collector CPU/ { match($0, /collector CPU [0-9.]+/); c[FILENAME] = substr($0, RSTART + 14, RLENGTH - 14) }
     /server.s CPU/ { s = $NF == "cores" ? $(NF - 1) : s }
     END { printf "ingest: PostgreSQL/SQLite collector CPU %.2f (goal <= 1.3), database server %s cores (goal < 1)\n",
		  c[ARGV[2]] / c[ARGV[1]], s }' "$scratch/ingest.out" "$scratch/ingest_pg.out"
kill "${pg_collector_pids[@]}"
wait "${pg_collector_pids[@]}" 2>/dev/null || true
kill -INT "$pg_pid"
wait "$pg_pid" 2>/dev/null || true

# heaptap's CPU over the window, in % of a core per traced rank: MODE (attach|agent) KIND.
tracer_cpu() {
	local mode=$1 kind=$2 targets_pids=() list tracer t0 t1 hz
	hz=$(getconf CLK_TCK)
	for ((i = 0; i < traced; i++)); do
		if [ "$kind" = idle ]; then
			"$targets/groundtruth" --park >/dev/null &
		else
			"$bench/malloc_loop" 100000000000 --wait >/dev/null &
		fi
		targets_pids+=($!)
		pids+=($!)
	done
	sleep 0.5
	list=$(IFS=,; echo "${targets_pids[*]}")
	if [ "$mode" = attach ]; then
		"$heaptap" attach -p "$list" -o /dev/null 2>"$scratch/tracer.err" &
	else
		"$heaptap" agent --sample-bytes 0 --collector "$endpoint" -p "$list" 2>"$scratch/tracer.err" &
	fi
	tracer=$!
	for _ in $(seq 300); do
		[ "$(grep -c 'attached to PID' "$scratch/tracer.err" || true)" -ge "$traced" ] && break
		sleep 0.1
	done
	[ "$kind" = busy ] && kill -USR1 "${targets_pids[@]}"
	sleep 1
	t0=$(cpu_ticks "$tracer")
	sleep "$window"
	t1=$(cpu_ticks "$tracer")
	kill -INT "$tracer"
	wait "$tracer" 2>/dev/null || true
	kill "${targets_pids[@]}" 2>/dev/null || true
	wait "${targets_pids[@]}" 2>/dev/null || true
	awk -v d=$((t1 - t0)) -v hz="$hz" -v w="$window" -v n="$traced" \
		'BEGIN { printf "%.2f", d / hz / w / n * 100 }'
}

start_collector agent
for kind in idle busy; do
	attach=$(tracer_cpu attach "$kind")
	agent=$(tracer_cpu agent "$kind")
	echo "agent: heaptap's CPU per traced rank ($traced $kind ranks, ${window} s): attach" \
		"${attach}% of a core, agent at 1 Hz ${agent}%"
done
