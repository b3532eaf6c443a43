// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "discovery.h"
#include "log.h"
#include "privilege.h"
#include "procfs.h"
#include "rank.h"

/*
 * Is pid running heaptap's own program? heaptap's guardian (a fork) and other heaptaps
 * carry the rank of their launcher when srun or mpirun placed them (an agent per node):
 * they are tracers, never ranks. A heaptap holding more capabilities than this one hides
 * its executable: then its name tells.
 */
static bool is_heaptap(pid_t pid)
{
	static struct stat self;
	static char self_comm[16];
	char exe[64], comm[16];
	struct stat st;

	if (!self.st_ino && (stat("/proc/self/exe", &self) ||
			     !procfs_comm(getpid(), self_comm, sizeof(self_comm))))
		return false;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	if (!stat(exe, &st))
		return st.st_dev == self.st_dev && st.st_ino == self.st_ino;
	return procfs_comm(pid, comm, sizeof(comm)) && !strcmp(comm, self_comm);
}

/*
 * Processes found that the user may not trace, so each is reported once (the scan runs
 * every second): pid and start time, since a pid is reused.
 */
struct refused {
	pid_t pid;
	uint64_t start_time;
};

static struct refused *refused;
static size_t nr_refused, cap_refused;

/*
 * May the user trace pid? If so, *p pins it (release it after use); if not, the report
 * says so, once per process.
 */
static bool allowed(struct session *s, pid_t pid, struct trace_permit *p)
{
	const char *reason;
	int err = privilege_check(pid, p, &reason);
	char why[160];

	if (err != -EPERM)
		return err == 0;
	/* A refused process is pinned no more: its start time tells it from a successor. */
	for (size_t i = 0; i < nr_refused; i++) {
		if (refused[i].pid == pid && refused[i].start_time == p->start_time)
			return false;
	}
	if (nr_refused == cap_refused) {
		size_t cap = cap_refused ? cap_refused * 2 : 16;
		struct refused *grown = realloc(refused, cap * sizeof(*grown));

		if (!grown)
			return false;
		refused = grown;
		cap_refused = cap;
	}
	refused[nr_refused++] = (struct refused){ .pid = pid, .start_time = p->start_time };
	snprintf(why, sizeof(why), "not allowed: %s", reason);
	session__note_untraced(s, pid, why);
	return false;
}

void discovery_rescan(struct session *s)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;

	if (!proc)
		return;
	while ((d = readdir(proc))) {
		struct mpi_identity mpi;
		struct trace_permit permit;
		pid_t pid;
		int err;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid = atoi(d->d_name);
		/* heaptap itself may carry a rank when a launcher started it. */
		if (pid == getpid() || session__knows(s, pid))
			continue;
		/*
		 * Only the user's own processes: another user's launcher is refused (its name is
		 * public), another user's ranks are not even seen (their environment is not).
		 */
		if (process_is_launcher(pid)) {
			if (allowed(s, pid, &permit))
				session__follow(s, pid);
			privilege_release(&permit);
			continue;
		}
		mpi_identity_of_process(pid, &mpi);
		if (mpi.rank < 0 || is_heaptap(pid) || !allowed(s, pid, &permit))
			continue;
		err = session__attach(s, pid);
		/* The pid took another process while it was attached: that one is not ours. */
		if (!err && !privilege_still_same(&permit)) {
			session__mark_exited(s, pid, -1);
			err = -ESRCH;
		}
		privilege_release(&permit);
		if (err)
			log_debug("rank process %d: cannot attach: %d", pid, err);
		else
			log_info("attached to PID %d", pid);
	}
	closedir(proc);
}

int discovery_start(struct session *s)
{
	session__follow_launchers(s);
	discovery_rescan(s);
	return 0;
}
