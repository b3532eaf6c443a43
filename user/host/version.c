// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap --version. The kernel features are those heaptap uses (README "Install"); each
 * is tried with a program that does nothing (kernel_features.c), so that an administrator
 * can see why heaptap would refuse to run, or what it does instead, before running it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/libbpf_version.h>
#include "kernel_features.h"
#include "version.h"
#include "version_string.h" /* generated: HEAPTAP_VERSION */

const char heaptap_version[] = HEAPTAP_VERSION;

/* The initial PID namespace's inode (as preflight.c checks it). */
#define PID_NS_INIT_INO 0xEFFFFFFCUL

/* A sysctl's first line, or "?" when it cannot be read. */
static void read_sysctl(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	snprintf(buf, size, "?");
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static void print_feature(FILE *out, const char *what, const char *answer)
{
	fprintf(out, "  %-50s %s\n", what, answer);
}

/* "no" and what lacking it costs; "yes"; or why it could not be tried. */
static void print_kernel_feature(FILE *out, enum kernel_feature f)
{
	const struct kernel_feature_info *info = kernel_feature_info(f);
	int has = kernel_has(f);
	char what[96], answer[256];

	snprintf(what, sizeof(what), "%s, %s", info->name, info->since);
	if (has > 0)
		snprintf(answer, sizeof(answer), "yes");
	else if (has < 0)
		snprintf(answer, sizeof(answer), "not probed (%s)",
			 has == -EPERM || has == -EACCES ? "needs root or CAP_BPF" :
							   strerror(-has));
	else
		snprintf(answer, sizeof(answer), "no%s: %s%s",
			 kernel_feature_forced_off(f) ? " (HEAPTAP_FORCE_NO_UPROBE_MULTI)" : "",
			 info->need == KF_REQUIRED ? "heaptap refuses to trace; " : "",
			 info->cost);
	print_feature(out, what, answer);
}

void version_print(FILE *out)
{
	char release[128] = "?", value[64];
	struct utsname u;
	struct stat st;

	fprintf(out, "heaptap %s\n", heaptap_version);
	fprintf(out, "libbpf %s (built with %d.%d)\n", libbpf_version_string(),
		LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION);
	if (!uname(&u))
		snprintf(release, sizeof(release), "%s", u.release);
	fprintf(out, "kernel %s, features found (each with the Linux release that brought it):\n",
		release);
	for (int f = 0; f < KF_NR; f++)
		print_kernel_feature(out, f);
	print_feature(out, "initial PID namespace",
		      stat("/proc/self/ns/pid", &st) ? "unknown" :
		      st.st_ino == PID_NS_INIT_INO   ? "yes" :
						       "no (a container's)");
	read_sysctl("/proc/sys/kernel/unprivileged_bpf_disabled", value, sizeof(value));
	print_feature(out, "kernel.unprivileged_bpf_disabled", value);
	read_sysctl("/proc/sys/kernel/bpf_stats_enabled", value, sizeof(value));
	print_feature(out, "kernel.bpf_stats_enabled", value);
}
