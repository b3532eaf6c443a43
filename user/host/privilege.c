// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include "kernel_features.h"
#include "log.h"
#include "privilege.h"

/* Loading the BPF programs and maps, and placing probes: every caller needs these. */
static const cap_value_t tracing_caps[] = { CAP_BPF, CAP_PERFMON };
/*
 * Reaching other users' processes, for a caller that may trace them: their /proc files
 * (CAP_SYS_PTRACE), the files they map from private directories (CAP_DAC_READ_SEARCH;
 * /proc/PID/map_files is mode 0500 too), the very file mapped even if its path now names
 * another, through /proc/PID/map_files (CAP_CHECKPOINT_RESTORE; without it heaptap reads
 * the path and checks the inode), and the SIGCONT that ends a stop (CAP_KILL: without it a
 * process heaptap stopped would stay stopped).
 */
static const cap_value_t reach_caps[] = { CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH,
					  CAP_CHECKPOINT_RESTORE, CAP_KILL };
/*
 * Placing a uprobe through a perf event (kernels without uprobe_multi links): the uprobe
 * PMU admits only CAP_SYS_ADMIN, CAP_PERFMON is not enough.
 */
static const cap_value_t perf_probe_caps[] = { CAP_SYS_ADMIN, CAP_PERFMON };
/*
 * Starting the threads that read events at a higher priority (user/trace/consumer.c), for
 * a caller that may: kept until set-up is done, like the tracing capabilities.
 */
static const cap_value_t setup_caps[] = { CAP_SYS_NICE };
#define NR(a) (sizeof(a) / sizeof((a)[0]))

static struct {
	bool initialized;
	bool unrestricted;
	uid_t uid;
	gid_t gid;
	uint64_t own_caps; /* capabilities the caller had before heaptap's file gave any */
} priv;

static bool has_permitted(cap_t caps, cap_value_t cap)
{
	cap_flag_value_t v = CAP_CLEAR;

	cap_get_flag(caps, cap, CAP_PERMITTED, &v);
	return v == CAP_SET;
}

static void keep(cap_t from, cap_t to, const cap_value_t *list, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		if (!has_permitted(from, list[i]))
			continue;
		cap_set_flag(to, CAP_PERMITTED, 1, &list[i], CAP_SET);
		cap_set_flag(to, CAP_EFFECTIVE, 1, &list[i], CAP_SET);
	}
}

int privilege_init(void)
{
	/*
	 * AT_SECURE: this exec raised privileges (file capabilities, setuid). Capabilities
	 * that came with heaptap's file are the binary's, not its user's.
	 */
	bool from_file = getauxval(AT_SECURE) != 0;
	cap_t now = cap_get_proc(), kept = cap_init();
	int err = 0;

	if (!now || !kept) {
		err = -errno;
		log_error("cannot read heaptap's capabilities: %s", strerror(-err));
		goto cleanup;
	}
	priv.uid = getuid();
	priv.gid = getgid();
	/*
	 * Without CAP_KILL even root could not end a stop it imposed on another user's
	 * process: such a caller traces only its own processes.
	 */
	priv.unrestricted = (priv.uid == 0 || (!from_file && has_permitted(now, CAP_SYS_PTRACE))) &&
			    has_permitted(now, CAP_KILL);
	for (cap_value_t c = 0; !from_file && c <= CAP_LAST_CAP && c < 64; c++) {
		if (has_permitted(now, c))
			priv.own_caps |= 1ull << c;
	}
	keep(now, kept, tracing_caps, NR(tracing_caps));
	keep(now, kept, setup_caps, NR(setup_caps));
	if (priv.unrestricted)
		keep(now, kept, reach_caps, NR(reach_caps));
	if (kernel_has(KF_UPROBE_MULTI) == 0) {
		if (!has_permitted(now, CAP_SYS_ADMIN)) {
			err = -EPERM;
			log_error("this kernel has no uprobe_multi links (Linux 6.6): its probes are "
				  "perf events, which need CAP_SYS_ADMIN: run heaptap as root");
			goto cleanup;
		}
		keep(now, kept, perf_probe_caps, NR(perf_probe_caps));
	}
	/* Inheritable and ambient stay empty: a command heaptap runs gets none of them. */
	if (cap_set_proc(kept) || (CAP_AMBIENT_SUPPORTED() && cap_reset_ambient())) {
		err = -errno;
		log_error("cannot drop capabilities heaptap does not use: %s", strerror(-err));
		goto cleanup;
	}
	priv.initialized = true;
cleanup:
	cap_free(now);
	cap_free(kept);
	return err;
}

/*
 * Can heaptap still use its maps without CAP_BPF? Linux before 6.5 checks
 * kernel.unprivileged_bpf_disabled on every bpf() call, a map's lookup too. Tried on a map
 * of its own, with CAP_BPF out of this thread's effective set for the moment (the raw
 * system call: libcap's would change every thread's, and they may be using the maps).
 */
static bool maps_need_cap_bpf(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2], without[2];
	int map = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);
	__u32 key = 0, value;
	bool needed;

	if (map < 0)
		return false;
	if (syscall(SYS_capget, &hdr, data)) {
		close(map);
		return false;
	}
	memcpy(without, data, sizeof(data));
	without[CAP_TO_INDEX(CAP_BPF)].effective &= ~CAP_TO_MASK(CAP_BPF);
	if (syscall(SYS_capset, &hdr, without)) {
		close(map);
		return false;
	}
	needed = bpf_map_lookup_elem(map, &key, &value) && errno == EPERM;
	syscall(SYS_capset, &hdr, data);
	close(map);
	return needed;
}

void privilege_setup_done(void)
{
	cap_value_t drop[NR(tracing_caps) + NR(setup_caps)];
	cap_t now = cap_get_proc();
	int nr = 0;

	if (!now)
		return;
	for (size_t i = 0; i < NR(setup_caps); i++)
		drop[nr++] = setup_caps[i];
	/* Before Linux 6.5 every bpf() call may need it. */
	if (!maps_need_cap_bpf())
		drop[nr++] = CAP_BPF;
	else
		log_debug("this kernel wants CAP_BPF for every bpf() call: it stays");
	/* Without uprobe_multi links each probe is a perf event, which needs them. */
	if (kernel_has(KF_UPROBE_MULTI) != 0)
		drop[nr++] = CAP_PERFMON;
	else
		log_debug("probes are perf events on this kernel: CAP_SYS_ADMIN and CAP_PERFMON "
			  "stay");
	/* Linked with libpsx, this applies to every thread heaptap has started. */
	cap_set_flag(now, CAP_EFFECTIVE, nr, drop, CAP_CLEAR);
	cap_set_flag(now, CAP_PERMITTED, nr, drop, CAP_CLEAR);
	if (cap_set_proc(now))
		log_error("cannot drop CAP_BPF, CAP_PERFMON and CAP_SYS_NICE after loading: %m");
	cap_free(now);
}

bool privilege_unrestricted(void)
{
	/* Without init (unit tests), nothing was dropped: root may trace anything. */
	return priv.initialized ? priv.unrestricted : getuid() == 0;
}

static uid_t caller_uid(void)
{
	return priv.initialized ? priv.uid : getuid();
}

static gid_t caller_gid(void)
{
	return priv.initialized ? priv.gid : getgid();
}

void privilege_describe(char *buf, size_t size)
{
	cap_t now = cap_get_proc();
	char *text = now ? cap_to_text(now, NULL) : NULL;

	snprintf(buf, size, "%s", text ? text : "?");
	cap_free(text);
	cap_free(now);
}

/* Read a small /proc/PID file through the directory the pid was opened as. */
static int read_at(int dirfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	buf[n] = '\0';
	return 0;
}

/* Field 22 of /proc/PID/stat: when the process started, in clock ticks after boot. */
static int start_time_at(int dirfd, uint64_t *out)
{
	char buf[1024], *p;
	int err = read_at(dirfd, "stat", buf, sizeof(buf));

	if (err)
		return err;
	/* "pid (comm) S ...": comm may hold spaces and parentheses; the last ')' ends it. */
	p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%" SCNu64, out) != 1)
		return -EIO;
	return 0;
}

/* The ids "Uid:" or "Gid:" lists in status: real, effective, saved, filesystem. */
static int ids_of(const char *status, const char *key, unsigned long ids[4])
{
	const char *line = strstr(status, key);

	if (!line || sscanf(line + strlen(key), "%lu %lu %lu %lu", &ids[0], &ids[1], &ids[2],
			    &ids[3]) != 4)
		return -EIO;
	return 0;
}

/* Why the caller may not trace the process whose /proc directory is dirfd, or NULL. */
static const char *refusal(int dirfd, int *err)
{
	unsigned long uids[4], gids[4];
	char status[4096];
	const char *caps;
	uint64_t prm;
	struct stat st;

	*err = read_at(dirfd, "status", status, sizeof(status));
	if (*err)
		return *err == -ESRCH ? "no such process" : "its /proc/PID/status cannot be read";
	*err = -EPERM;
	if (ids_of(status, "\nUid:", uids) || ids_of(status, "\nGid:", gids))
		return "its /proc/PID/status cannot be parsed";
	for (int i = 0; i < 3; i++) {
		if (uids[i] != caller_uid())
			return "it belongs to another user";
		if (gids[i] != caller_gid())
			return "it runs with another group (setgid?)";
	}
	/* A process that is not dumpable has its /proc directory owned by root. */
	if (fstat(dirfd, &st))
		return "its /proc/PID cannot be examined";
	if (st.st_uid != caller_uid())
		return "it is not dumpable (it ran a setuid or capability-raising program, or "
		       "asked not to be traced)";
	caps = strstr(status, "\nCapPrm:");
	if (!caps || sscanf(caps + strlen("\nCapPrm:"), "%" SCNx64, &prm) != 1)
		return "its /proc/PID/status cannot be parsed";
	if (prm & ~priv.own_caps)
		return "it holds capabilities its user does not have";
	*err = 0;
	return NULL;
}

static int check(pid_t pid, struct trace_permit *p, const char **reason)
{
	char path[32];
	uint64_t again;
	int dirfd, err;

	p->pid = pid;
	*reason = "no such process";
	/* Pin the process: while it lives (a zombie too), its pid cannot name another. */
	p->pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (p->pidfd < 0) /* EINVAL: a thread's id, not a process's */
		return errno == ESRCH || errno == EINVAL ? -ESRCH : -errno;
	snprintf(path, sizeof(path), "/proc/%d", pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		err = errno == EMFILE || errno == ENFILE || errno == ENOMEM ? -errno : -ESRCH;
		privilege_release(p);
		return err;
	}
	err = start_time_at(dirfd, &p->start_time);
	if (err && err != -ESRCH)
		*reason = "its /proc/PID/stat cannot be read";
	if (!err && !privilege_unrestricted())
		*reason = refusal(dirfd, &err);
	/* What was read is the pinned process's only if it is still there, as it started. */
	if (!err && (!privilege_still_same(p) || start_time_at(dirfd, &again) ||
		     again != p->start_time)) {
		*reason = "it exited while it was checked";
		err = -ESRCH;
	}
	close(dirfd);
	if (err) {
		privilege_release(p);
		/* Out of descriptors is heaptap's limit, not a verdict on the process. */
		if (err == -EMFILE || err == -ENFILE || err == -ENOMEM)
			return err;
		return err == -ESRCH ? -ESRCH : -EPERM;
	}
	*reason = NULL;
	return 0;
}

int privilege_check(pid_t pid, struct trace_permit *permit, const char **reason)
{
	return check(pid, permit, reason);
}

int may_trace(pid_t pid, const char **reason)
{
	struct trace_permit p;
	int err = check(pid, &p, reason);

	privilege_release(&p);
	return err;
}

bool privilege_still_same(const struct trace_permit *p)
{
	char path[32];
	uint64_t start;
	int dirfd, err;

	if (p->pidfd < 0)
		return false;
	/* Signal 0 checks only that it lives; a refusal (EPERM) also means it does. */
	if (syscall(SYS_pidfd_send_signal, p->pidfd, 0, NULL, 0) && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d", p->pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* Out of descriptors: the pidfd alone says it, since a pinned pid is never reused. */
	if (dirfd < 0)
		return errno == EMFILE || errno == ENFILE || errno == ENOMEM;
	err = start_time_at(dirfd, &start);
	close(dirfd);
	if (err == -EMFILE || err == -ENFILE || err == -ENOMEM)
		return true;
	return !err && start == p->start_time;
}

void privilege_release(struct trace_permit *p)
{
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
}

/* Fields 50 and 51 of /proc/self/stat: where exec placed the environment strings. */
static int environ_block(const char **start, const char **end)
{
	unsigned long long from, to;
	char buf[2048], *p;
	int dirfd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = dirfd < 0 ? -errno : read_at(dirfd, "stat", buf, sizeof(buf));

	if (dirfd >= 0)
		close(dirfd);
	if (err)
		return err;
	p = strrchr(buf, ')');
	for (int field = 2; field < 50 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu %llu", &from, &to) != 2 || to <= from ||
	    to - from > (64u << 20))
		return -EIO;
	*start = (const char *)(uintptr_t)from;
	*end = (const char *)(uintptr_t)to;
	return (*end)[-1] == '\0' ? 0 : -EIO;
}

char **privilege_command_environ(void)
{
	static char **saved;
	const char *start, *end, *p;
	size_t nr = 0;

	if (saved || !getauxval(AT_SECURE))
		return saved ? saved : environ;
	/*
	 * The strings exec placed are still there: ld.so's removals only moved pointers in
	 * environ. (/proc/self/environ would say the same, but heaptap's file capabilities
	 * made it non-dumpable: that file is root's, mode 0400.)
	 */
	if (environ_block(&start, &end))
		return environ;
	for (p = start; p < end; p += strlen(p) + 1)
		nr++;
	saved = calloc(nr + 1, sizeof(*saved));
	if (!saved)
		return environ;
	nr = 0;
	for (p = start; p < end; p += strlen(p) + 1)
		saved[nr++] = (char *)p;
	return saved;
}

int may_exec_traced(const char *path, const char **reason)
{
	struct stat st;

	if (privilege_unrestricted() || stat(path, &st))
		return 0; /* exec reports a missing file better */
	if ((st.st_mode & S_ISUID) && st.st_uid != caller_uid()) {
		*reason = "it is setuid: it would run with another user's privileges";
		return -EPERM;
	}
	/* setgid without group execute means mandatory locking, not a privilege. */
	if ((st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) && st.st_gid != caller_gid()) {
		*reason = "it is setgid: it would run with another group's privileges";
		return -EPERM;
	}
	if (getxattr(path, "security.capability", NULL, 0) > 0) {
		*reason = "it has file capabilities: it would run with privileges its user lacks";
		return -EPERM;
	}
	return 0;
}
