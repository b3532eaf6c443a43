#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# A one-node Slurm cluster on this machine, for tests: Debian's munge and slurm-wlm, run
# as root, on 127.0.0.1 only, everything (config, MUNGE key, state, logs) in DIR but MUNGE's
# socket, in a directory of its own under /tmp (munged's rules on its path).
#
#   slurm_cluster.sh start DIR [SLURMCTLD_PORT SLURMD_PORT]   # waits until the node is idle
#   slurm_cluster.sh stop DIR                                 # cancels its jobs, stops it
#   slurm_cluster.sh munge DIR      # munged alone (stop DIR stops it); prints its socket
#
# Then: SLURM_CONF=DIR/slurm.conf srun -n 3 -O hostname
# No accounting database; proctrack/linuxproc (no cgroup setup needed); the node's CPUs as
# `slurmd -C` finds them. Every daemon and srun bind to 127.0.0.1 (NoInAddrAny): the node
# name is this host's name when it resolves to a loopback address, else "localhost".
# On failure it says why on one line (from the daemon's log) and stops what it started.
set -u

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || {
	echo "usage: $0 start|stop DIR [SLURMCTLD_PORT SLURMD_PORT]" >&2
	exit 2
}
dir=$(realpath -m "$dir")
export SLURM_CONF=$dir/slurm.conf
# Clusters started and not yet stopped: a test killed on a timeout leaves one behind.
running=/tmp/heaptap-slurm-clusters

fail() {
	echo "slurm_cluster: $*" >&2
	stop_daemons
	exit 1
}

# The last error a daemon logged, for the one line that says why it did not start.
last_error() {
	grep -hiE 'error|fatal' "$@" 2>/dev/null | tail -n 1
}

stop_pid() {
	local file=$1 pid
	[ -s "$file" ] || return 0
	pid=$(cat "$file")
	kill "$pid" 2>/dev/null || return 0
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
}

stop_daemons() {
	# Jobs first, while slurmctld can still cancel them: their steps end with them.
	if [ -s "$dir/run/slurmctld.pid" ] && kill -0 "$(cat "$dir/run/slurmctld.pid")" 2>/dev/null
	then
		squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null
		for _ in $(seq 150); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.1
		done
	fi
	stop_pid "$dir/run/slurmd.pid"
	stop_pid "$dir/run/slurmctld.pid"
	stop_pid "$dir/run/munged.pid"
	if [ -s "$dir/run/socket_dir" ]; then
		rm -rf "$(cat "$dir/run/socket_dir")"
		rm -f "$dir/run/socket_dir"
	fi
}

node_name() {
	local host
	host=$(hostname -s)
	case "$(getent ahostsv4 "$host" | awk 'NR == 1 { print $1 }')" in
	127.*) echo "$host" ;;
	*) echo localhost ;;
	esac
}

write_config() {
	local node=$1 ctld_port=$2 slurmd_port=$3 socket_dir=$4 hw
	# CPUs, sockets, cores and threads as slurmd itself finds them.
	hw=$(slurmd -C | head -n 1 | sed -e 's/^NodeName=[^ ]* //' -e 's/ RealMemory=[0-9]*//')
	cat >"$SLURM_CONF" <<EOF
ClusterName=heaptaptest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket_dir/munge.socket
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$node $hw RealMemory=1000 State=UNKNOWN
PartitionName=heaptap Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
}

# munged with a key of its own; its socket's directory in socket_dir.
start_munge() {
	[ "$(id -u)" = 0 ] || fail "needs root (it starts munged)"
	mkdir -p "$dir/run" "$dir/munge" "$dir/log" || fail "cannot create $dir"
	chmod 0700 "$dir/munge"
	# munged wants every directory above its socket searchable by all users, which DIR
	# (a test's private scratch directory) need not be: the socket gets one of its own.
	socket_dir=$(mktemp -d /tmp/heaptap-munge.XXXXXX) && chmod 0755 "$socket_dir" &&
		echo "$socket_dir" >"$dir/run/socket_dir" || fail "cannot create a socket directory"
	mungekey --create --force --keyfile="$dir/munge/munge.key" ||
		fail "mungekey could not make a key"
	munged --key-file="$dir/munge/munge.key" --socket="$socket_dir/munge.socket" \
		--pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
		--seed-file="$dir/munge/munged.seed" ||
		fail "munged did not start: $(last_error "$dir/log/munged.log")"
}

start() {
	local ctld_port=${1:-16817} slurmd_port=${2:-16818} node state socket_dir
	for prog in munged mungekey slurmctld slurmd srun sinfo; do
		command -v $prog >/dev/null ||
			fail "$prog is missing: install Debian's munge, slurmctld, slurmd and slurm-client (make deps-test)"
	done
	[ "$(id -u)" = 0 ] || fail "needs root (it starts slurmd and munged)"
	mkdir -p "$dir/ctld" "$dir/spool" || fail "cannot create $dir"
	start_munge
	node=$(node_name)
	write_config "$node" "$ctld_port" "$slurmd_port" "$socket_dir"
	slurmctld -f "$SLURM_CONF" ||
		fail "slurmctld did not start: $(last_error "$dir/log/slurmctld.log")"
	slurmd -f "$SLURM_CONF" -N "$node" ||
		fail "slurmd did not start: $(last_error "$dir/log/slurmd.log")"
	for _ in $(seq 600); do
		state=$(sinfo -h -n "$node" -o %T 2>/dev/null)
		[ "$state" = idle ] && {
			echo "slurm_cluster: node $node idle (SLURM_CONF=$SLURM_CONF)"
			return 0
		}
		sleep 0.1
	done
	fail "node $node not idle after 60 s (state '${state:-none}'):" \
		"$(last_error "$dir/log/slurmctld.log" "$dir/log/slurmd.log")"
}

# Stop the clusters of earlier starts that were never stopped (their ports, their jobs).
stop_leftovers() {
	local other
	[ -s "$running" ] || return 0
	while read -r other; do
		[ -n "$other" ] && [ "$other" != "$dir" ] && [ -d "$other" ] &&
			"$0" stop "$other"
	done <"$running"
	: >"$running"
}

case "$cmd" in
start)
	shift 2
	stop_leftovers
	echo "$dir" >>"$running"
	start "$@"
	;;
munge)
	for prog in munged mungekey; do
		command -v $prog >/dev/null ||
			fail "$prog is missing: install Debian's munge (make deps-test)"
	done
	echo "$dir" >>"$running"
	start_munge
	echo "slurm_cluster: munged on $socket_dir/munge.socket"
	;;
stop)
	stop_daemons
	[ -f "$running" ] && sed -i "\|^$dir\$|d" "$running"
	;;
*) echo "usage: $0 start|stop|munge DIR [SLURMCTLD_PORT SLURMD_PORT]" >&2; exit 2 ;;
esac
