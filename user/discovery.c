// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "discovery.h"
#include "log.h"
#include "procfs.h"
#include "rank.h"

static bool is_launcher(pid_t pid)
{
	size_t len;
	char *comm;
	bool found = false;

	if (procfs_read(pid, "comm", &comm, &len))
		return false;
	comm[strcspn(comm, "\n")] = '\0';
	for (size_t i = 0; i < nr_mpi_launcher_names && !found; i++)
		found = !strcmp(comm, mpi_launcher_names[i]);
	free(comm);
	return found;
}

void discovery_rescan(struct session *s)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;

	if (!proc)
		return;
	while ((d = readdir(proc))) {
		struct mpi_identity mpi;
		pid_t pid;
		int err;

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		pid = atoi(d->d_name);
		/* heaptap itself may carry a rank when a launcher started it. */
		if (pid == getpid() || session__knows(s, pid))
			continue;
		if (is_launcher(pid)) {
			session__follow(s, pid);
			continue;
		}
		mpi_identity_of_process(pid, &mpi);
		if (mpi.rank < 0)
			continue;
		err = session__attach(s, pid);
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
