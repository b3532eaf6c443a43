/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What heaptap may do, and for whom. heaptap may run with capabilities its user does not
 * have (file capabilities on the binary, for a group of users to profile their own jobs):
 * it keeps only the capabilities it uses, and traces, stops or signals a process only if
 * the user who started it could ptrace that process. root, and a caller granted
 * CAP_SYS_PTRACE before heaptap started (an administrator's service), may trace anything,
 * if it holds CAP_KILL: heaptap must be able to end the stops it imposes.
 */
#ifndef HEAPTAP_PRIVILEGE_H
#define HEAPTAP_PRIVILEGE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * At start, before any thread: keep only the capabilities heaptap uses (CAP_BPF and
 * CAP_PERFMON; for an unrestricted caller also those that reach other users' processes),
 * clear the inheritable and ambient sets so a command heaptap runs gets none of them.
 * 0, or -errno with one line logged.
 */
int privilege_init(void);
/*
 * The BPF programs and maps are loaded: drop CAP_BPF and CAP_PERFMON, in every thread.
 * Placing a probe (a uprobe_multi link on a loaded program) and using the maps need
 * neither; a restricted caller holds no capability from here on. No program or map may
 * be created after this. Except on older kernels: CAP_BPF stays where every bpf() call
 * needs it (before Linux 6.5, with kernel.unprivileged_bpf_disabled set), CAP_SYS_ADMIN
 * and CAP_PERFMON where probes are perf events (no uprobe_multi links; privilege_init()
 * refuses a caller without CAP_SYS_ADMIN there).
 */
void privilege_setup_done(void);
/* Is the caller allowed to trace any process (root or CAP_SYS_PTRACE, and CAP_KILL)? */
bool privilege_unrestricted(void);
/* The capabilities heaptap holds now, as text ("cap_bpf,cap_perfmon=ep"), for -v. */
void privilege_describe(char *buf, size_t size);

/*
 * May the caller trace (probe, stop, signal) pid? 0, or -EPERM (not allowed) or -ESRCH
 * (no such process, or it exited during the check), with *reason one line saying why.
 * The caller may trace it when, as for ptrace: all of its real, effective and saved uids
 * and gids are the caller's real uid and gid, it is dumpable, and it holds no capability
 * the caller does not. Checked through a pidfd, so a pid reused meanwhile is not taken
 * for the process that was checked.
 */
int may_trace(pid_t pid, const char **reason);

/*
 * The same check, keeping hold of the process checked (its pidfd and start time), so
 * that after using the pid (placing probes) the caller can make sure it still named the
 * process that was checked: privilege_still_same(). Release with privilege_release().
 */
struct trace_permit {
	pid_t pid;
	int pidfd;
	uint64_t start_time; /* clock ticks after boot, /proc/PID/stat field 22 */
};

int privilege_check(pid_t pid, struct trace_permit *permit, const char **reason);
/* Is the permit's process still alive, and still the one pid names? */
bool privilege_still_same(const struct trace_permit *permit);
void privilege_release(struct trace_permit *permit);

/*
 * The environment for a command heaptap runs. When heaptap's file gave it privileges,
 * glibc removed LD_LIBRARY_PATH, LD_PRELOAD and the like from its environ, as they must not
 * steer a privileged program; the command runs with its user's privileges only, and gets
 * the environment heaptap was started with. Call it before fork(): it allocates.
 */
char **privilege_command_environ(void);

/*
 * Would running path change the caller's privileges (setuid, setgid, or file
 * capabilities)? Such a program may not be traced: 0 or -EPERM with *reason.
 */
int may_exec_traced(const char *path, const char **reason);

#endif
