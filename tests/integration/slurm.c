// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "driver.h"
#include "services.h"
#include "slurm.h"

static char cluster_dir[256];

static const char *script_path(char *buf, size_t size)
{
	const char *env = getenv("SLURM_CLUSTER");
	char heaptap[4096];

	if (env) {
		snprintf(buf, size, "%s", env);
		return buf;
	}
	/* Beside the binary under test: the source tree's tests/integration. */
	snprintf(heaptap, sizeof(heaptap), "%s", heaptap_path());
	snprintf(buf, size, "%s/tests/integration/slurm_cluster.sh", dirname(heaptap));
	return buf;
}

/* The last line of a file, for a one-line failure. */
static const char *last_line(const char *path)
{
	static char line[512];
	char *text = slurp(path), *end, *start;

	snprintf(line, sizeof(line), "(nothing in %s)", path);
	if (!text)
		return line;
	end = text + strlen(text);
	while (end > text && end[-1] == '\n')
		*--end = '\0';
	start = strrchr(text, '\n');
	snprintf(line, sizeof(line), "%s", start ? start + 1 : text);
	free(text);
	return line;
}

void slurm_start(void)
{
	char script[4096], ctld_port[16], slurmd_port[16], out[256], conf[300];
	char *argv[] = { script, "start", cluster_dir, ctld_port, slurmd_port, NULL };
	int status;

	script_path(script, sizeof(script));
	scratch_file("slurm", cluster_dir, sizeof(cluster_dir));
	snprintf(ctld_port, sizeof(ctld_port), "%d", free_local_port());
	do
		snprintf(slurmd_port, sizeof(slurmd_port), "%d", free_local_port());
	while (!strcmp(slurmd_port, ctld_port));
	status = wait_status(spawn(argv, NULL, scratch_file("slurm_cluster.err", out, sizeof(out))),
			     120);
	if (status) {
		cr_log_error("%s", slurp(out));
		cr_assert_fail("no Slurm cluster (exit %d): %s", status, last_line(out));
	}
	snprintf(conf, sizeof(conf), "%s/slurm.conf", cluster_dir);
	setenv("SLURM_CONF", conf, 1);
}

void munge_start(char *socket, size_t size)
{
	char script[4096], out[256], err[256], path[300], *dir;
	char *argv[] = { script, "munge", cluster_dir, NULL };
	int status;

	script_path(script, sizeof(script));
	scratch_file("munge", cluster_dir, sizeof(cluster_dir));
	status = wait_status(spawn(argv, scratch_file("munge.out", out, sizeof(out)),
				   scratch_file("munge.err", err, sizeof(err))),
			     60);
	if (status) {
		cr_log_error("%s", slurp(err));
		cr_assert_fail("no munged (exit %d): %s", status, last_line(err));
	}
	snprintf(path, sizeof(path), "%s/run/socket_dir", cluster_dir);
	dir = slurp(path);
	cr_assert(dir && *dir, "slurm_cluster.sh munge did not say where its socket is");
	dir[strcspn(dir, "\n")] = '\0';
	snprintf(socket, size, "%s/munge.socket", dir);
	free(dir);
}

void slurm_stop(void)
{
	char script[4096];
	char *argv[] = { script, "stop", cluster_dir, NULL };

	if (!cluster_dir[0])
		return;
	script_path(script, sizeof(script));
	wait_status(spawn(argv, NULL, NULL), 60);
	cluster_dir[0] = '\0';
}

int slurm_allocate(int tasks)
{
	char n[16], err[256], *text, *granted;
	char *argv[] = { "salloc", "--no-shell", "--overcommit", "-n", n, NULL };
	int status, job = -1;

	snprintf(n, sizeof(n), "%d", tasks);
	status = wait_status(spawn(argv, NULL, scratch_file("salloc.err", err, sizeof(err))), 60);
	text = slurp(err);
	/* salloc: Granted job allocation 7 */
	granted = text ? strstr(text, "Granted job allocation ") : NULL;
	if (granted)
		job = atoi(granted + strlen("Granted job allocation "));
	cr_assert(status == 0 && job > 0, "salloc -n %d: %s", tasks, last_line(err));
	free(text);
	return job;
}
