// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "exit_status.h"
#include "log.h"
#include "preflight.h"

/* The initial PID namespace's inode: fixed by the kernel (PROC_PID_INIT_INO). */
#define PID_NS_INIT_INO 0xEFFFFFFCUL

int kernel_release_at_least(const char *release, int major, int minor)
{
	long got_major, got_minor;
	char *end;

	got_major = strtol(release, &end, 10);
	if (end == release || *end != '.')
		return -EINVAL;
	release = end + 1;
	got_minor = strtol(release, &end, 10);
	if (end == release)
		return -EINVAL;
	return got_major > major || (got_major == major && got_minor >= minor);
}

static int check_kernel(void)
{
	struct utsname u;
	int ok;

	if (uname(&u)) {
		log_error("cannot read the kernel's version: %m");
		return EXIT_FAILURE_INTERNAL;
	}
	ok = kernel_release_at_least(u.release, HEAPTAP_MIN_KERNEL_MAJOR,
				     HEAPTAP_MIN_KERNEL_MINOR);
	if (ok < 0) {
		/* A release string without a version: let loading BPF say what is missing. */
		log_debug("kernel release '%s' names no version: not checked", u.release);
		return EXIT_OK;
	}
	if (!ok) {
		log_error("needs Linux %d.%d or later (uprobe_multi links); this kernel is %s",
			  HEAPTAP_MIN_KERNEL_MAJOR, HEAPTAP_MIN_KERNEL_MINOR, u.release);
		return EXIT_FAILURE_INTERNAL;
	}
	return EXIT_OK;
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
