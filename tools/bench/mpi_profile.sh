#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Where the time of an MPI job's start under heaptap goes, from one run recorded with perf
# (Debian: linux-perf) system-wide, kept to the processes of this run:
#   phases    heaptap's start until the launcher execs; the job (launcher exec to exit);
#             the launcher's exit to heaptap's exit
#   holds     per rank: how often heaptap stopped it (SIGSTOP sent by BPF at exec and
#             loader events) and how long until its SIGCONT: total, median, longest
#   closes    close() calls of heaptap's threads that took over 1 ms (probe links): count,
#             summed time, and the span they cover (they overlap on a pool of threads)
#   cpu       CPU seconds (1 ms cpu-clock samples) of heaptap, of the ranks, of the rest of
#             the job, and of everything else on the machine meanwhile (other load: noise)
# Not part of make bench (it needs perf and is one run); for the profile before and after.
# Note: a BPF program on a tracepoint that returns 0 hides that tracepoint from perf, so
# processes are followed through syscalls and signals, not sched_process_exec/exit.
#   tools/bench/mpi_profile.sh [heaptap run options...]   (default: --mpi)
set -euo pipefail
heaptap=${HEAPTAP:-./heaptap}
bench=${BENCH_DIR:-.output/bench}
ranks=${RANKS:-4}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
[ $# -gt 0 ] || set -- --mpi

if ! command -v perf >/dev/null; then
	echo "bench: mpi_profile needs perf (Debian: apt-get install linux-perf)" >&2
	exit 1
fi
perf record -q -k mono -a -o "$scratch/perf.data" -e cpu-clock/period=1000000/ \
	-e signal:signal_generate \
	-e sched:sched_process_fork -e syscalls:sys_enter_execve \
	-e syscalls:sys_enter_exit_group -e syscalls:sys_enter_close \
	-e syscalls:sys_exit_close -- \
	"$heaptap" run "$@" -o /dev/null -- \
	mpirun --allow-run-as-root --oversubscribe -np "$ranks" "$bench/mpi_start" \
	>"$scratch/out" 2>"$scratch/err" || {
	echo "bench: failed: perf record of heaptap run $*: $(tail -1 "$scratch/err")" >&2
	exit 1
}
grep -q "mpi_start ok $ranks" "$scratch/out" || {
	echo "bench: failed: the job under heaptap run $*: $(tail -1 "$scratch/err")" >&2
	exit 1
}
perf script -i "$scratch/perf.data" -F comm,pid,tid,time,event,trace 2>/dev/null |
	python3 -c '
import collections, re, statistics, sys
tree = collections.defaultdict(set)
events = []
for line in sys.stdin:
    m = re.match(r"\s*(.*?)\s+(\d+)/(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)", line)
    if m:
        comm, pid, tid, t, ev, tr = m.groups()
        events.append((float(t), comm, int(pid), int(tid), ev, tr))
# The run: heaptap, the first process perf started, and all it forked.
root = heaptap = next(pid for t, comm, pid, tid, ev, tr in events
                     if ev.endswith("sys_enter_execve"))
mine = {root}
for t, comm, pid, tid, ev, tr in events:
    if ev == "sched:sched_process_fork" and pid in mine:
        mine.add(int(re.search(r"child_pid=(\d+)", tr).group(1)))
exec_at, exit_at, comm_at_exit = {}, {}, {}
stopped, holds = {}, collections.defaultdict(list)
close_start, closes = {}, []
cpu = collections.Counter()
for t, comm, pid, tid, ev, tr in events:
    if ev.startswith("cpu-clock"):
        cpu[pid if pid in mine else None] += 1
    if pid not in mine:
        continue
    if ev.endswith("sys_enter_execve"):
        exec_at.setdefault(pid, t)
    elif ev.endswith("sys_enter_exit_group"):
        exit_at[pid] = t
        comm_at_exit[pid] = comm
    elif ev == "signal:signal_generate":
        sig = int(re.search(r"sig=(\d+)", tr).group(1))
        target = int(re.search(r" pid=(\d+)", tr).group(1))
        if sig == 19:
            stopped[target] = t
        elif sig == 18 and target in stopped:
            holds[target].append(t - stopped.pop(target))
    elif pid == heaptap and ev.endswith("sys_enter_close"):
        close_start[tid] = t
    elif pid == heaptap and ev.endswith("sys_exit_close") and tid in close_start:
        d = t - close_start.pop(tid)
        if d > 0.001:
            closes.append((t - d, t))
launcher = min((p for p in exec_at if p != heaptap), key=exec_at.get)
ranks = [p for p in holds if comm_at_exit.get(p) == "mpi_start"]
print(f"phases: heaptap start {exec_at[launcher] - exec_at[heaptap]:.3f} s, "
      f"job {exit_at[launcher] - exec_at[launcher]:.3f} s, "
      f"end {exit_at[heaptap] - exit_at[launcher]:.3f} s "
      f"(heaptap in all {exit_at[heaptap] - exec_at[heaptap]:.3f} s)")
for p in sorted(ranks):
    h = holds[p]
    print(f"rank pid {p}: {len(h)} holds, {1000 * sum(h):.0f} ms held, median "
          f"{1000 * statistics.median(h):.2f} ms, longest {1000 * max(h):.1f} ms; ran "
          f"{exit_at[p] - exec_at[p]:.3f} s")
others = [p for p in holds if p not in ranks]
print(f"other processes held: {len(others)}, {sum(len(holds[p]) for p in others)} holds, "
      f"{1000 * sum(sum(holds[p]) for p in others):.0f} ms")
if closes:
    span = max(e for s, e in closes) - min(s for s, e in closes)
    print(f"closes over 1 ms: {len(closes)}, {sum(e - s for s, e in closes):.3f} s summed, "
          f"spanning {span:.3f} s")
else:
    print("closes over 1 ms: none")
rank_cpu = sum(cpu[p] for p in ranks)
job_cpu = sum(n for p, n in cpu.items() if p not in (None, heaptap)) - rank_cpu
print(f"cpu: heaptap {cpu[heaptap] / 1000:.2f} s, ranks {rank_cpu / 1000:.2f} s, rest of the "
      f"job {job_cpu / 1000:.2f} s, other load on the machine {cpu[None] / 1000:.2f} s")
'
