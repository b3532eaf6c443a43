// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * heaptap --version. The kernel features are those heaptap needs (README "Install"); each
 * is looked up without loading anything into the kernel but libbpf's probe programs, so
 * that an administrator can see why heaptap would refuse to run before running it.
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
#include "preflight.h"
#include "session_uprobes.h"
#include "version.h"
#include "version_string.h" /* generated: HEAPTAP_VERSION */

const char heaptap_version[] = HEAPTAP_VERSION;

/* The initial PID namespace's inode (as preflight.c checks it). */
#define PID_NS_INIT_INO 0xEFFFFFFCUL

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

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

/* libbpf's probe of a map type: "yes", "no", or why it could not tell. */
static const char *probe_map(enum bpf_map_type type)
{
	int ret = libbpf_probe_bpf_map_type(type, NULL);

	if (ret > 0)
		return "yes";
	if (ret == 0)
		return "no";
	return ret == -EPERM || ret == -EACCES ? "not probed (needs root or CAP_BPF)" :
						   "not probed";
}

static void print_feature(FILE *out, const char *what, const char *answer)
{
	fprintf(out, "  %-48s %s\n", what, answer);
}

void version_print(FILE *out)
{
	char release[128] = "?", value[64];
	struct utsname u;
	struct stat st;
	int recent = -EINVAL;
	libbpf_print_fn_t old;

	fprintf(out, "heaptap %s\n", heaptap_version);
	fprintf(out, "libbpf %s (built with %d.%d)\n", libbpf_version_string(),
		LIBBPF_MAJOR_VERSION, LIBBPF_MINOR_VERSION);
	if (!uname(&u)) {
		snprintf(release, sizeof(release), "%s", u.release);
		recent = kernel_release_at_least(u.release, HEAPTAP_MIN_KERNEL_MAJOR,
						 HEAPTAP_MIN_KERNEL_MINOR);
	}
	fprintf(out, "kernel %s, features found:\n", release);
	snprintf(value, sizeof(value), "%s", recent > 0 ? "yes" : recent == 0 ? "no" : "unknown");
	print_feature(out, "Linux 6.6 or later (uprobe_multi links)", value);
	/* --sample-bytes: an unsampled call skips its return trap (sampling.h). */
	print_feature(out, "Linux 6.13 or later (session uprobes)",
		      kernel_has_session_uprobes() ? "yes" : "no");
	print_feature(out, "BTF (/sys/kernel/btf/vmlinux)",
		      exists("/sys/kernel/btf/vmlinux") ? "yes" : "no");
	print_feature(out, "uprobes (/sys/bus/event_source/devices/uprobe)",
		      exists("/sys/bus/event_source/devices/uprobe") ? "yes" : "no");
	print_feature(out, "initial PID namespace",
		      stat("/proc/self/ns/pid", &st) ? "unknown" :
		      st.st_ino == PID_NS_INIT_INO   ? "yes" :
						       "no (a container's)");
	/* libbpf's probes log their failures: not what --version is asked for. */
	old = libbpf_set_print(NULL);
	print_feature(out, "BPF ring buffer", probe_map(BPF_MAP_TYPE_RINGBUF));
	print_feature(out, "BPF task local storage", probe_map(BPF_MAP_TYPE_TASK_STORAGE));
	libbpf_set_print(old);
	read_sysctl("/proc/sys/kernel/unprivileged_bpf_disabled", value, sizeof(value));
	print_feature(out, "kernel.unprivileged_bpf_disabled", value);
	read_sysctl("/proc/sys/kernel/bpf_stats_enabled", value, sizeof(value));
	print_feature(out, "kernel.bpf_stats_enabled", value);
}
