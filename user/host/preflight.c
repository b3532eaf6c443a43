// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "exit_status.h"
#include "kernel_features.h"
#include "log.h"
#include "preflight.h"

/* The initial PID namespace's inode: fixed by the kernel (PROC_PID_INIT_INO). */
#define PID_NS_INIT_INO 0xEFFFFFFCUL

/*
 * Each feature heaptap's programs use, tried (kernel_features.c). Without CAP_BPF nothing
 * could be tried: loading the programs will say what is wrong.
 */
static int check_kernel(void)
{
	return kernel_features_check() == -ENOTSUP ? EXIT_FAILURE_INTERNAL : EXIT_OK;
}

/*
 * BPF reports process ids as the initial namespace numbers them; in any other namespace
 * they would name the wrong processes. Comparing with /proc/1/ns/pid proves nothing in a
 * container (its PID 1 shares its namespace): the initial namespace has a fixed inode.
 */
static int check_pid_namespace(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st)) {
		log_error("cannot read /proc/self/ns/pid: %m (heaptap needs the host's /proc)");
		return EXIT_FAILURE_INTERNAL;
	}
	if (st.st_ino != PID_NS_INIT_INO) {
		log_error("must run in the initial PID namespace, not in pid:[%lu] (a "
			  "container's): BPF sees the host's process ids",
			  (unsigned long)st.st_ino);
		return EXIT_FAILURE_INTERNAL;
	}
	return EXIT_OK;
}

int preflight_check(void)
{
	int status = check_kernel();

	if (status == EXIT_OK)
		status = check_pid_namespace();
	return status;
}
