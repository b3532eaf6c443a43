// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Ending stops at their bound, on a real BPF hash map and a real stopped child: only the
 * stops older than the bound, never one made after the clock was read, nor a later stop of
 * the same process.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "clock.h"
#include "guardian.h"
#include "heaptap_types.h"

TestSuite(guardian);

#define SECOND_NS 1000000000ull

static int new_held_map(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_held", sizeof(__u32),
				sizeof(struct ht_hold), 16, NULL);

	if (fd < 0 && (errno == EPERM || errno == EACCES))
		cr_skip_test("creating BPF maps needs root");
	cr_assert(fd >= 0, "held map: %s", strerror(errno));
	return fd;
}

/* A child stopped as heaptap stops one, and its start as the BPF side records it. */
static pid_t stopped_child(uint64_t *start_boottime)
{
	unsigned long long ticks = 0;
	char path[64], buf[1024], *p;
	int status;
	FILE *f;
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		for (;;)
			pause();
	}
	kill(pid, SIGSTOP);
	cr_assert(eq(int, waitpid(pid, &status, WUNTRACED), pid));
	cr_assert(eq(int, WIFSTOPPED(status), 1), "the child stopped");
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	cr_assert(f != NULL);
	cr_assert(fgets(buf, sizeof(buf), f) != NULL);
	fclose(f);
	p = strrchr(buf, ')');
	cr_assert(p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d "
				 "%*d %*d %*d %*d %*d %llu", &ticks) == 1);
	*start_boottime = ticks * (SECOND_NS / sysconf(_SC_CLK_TCK));
	return pid;
}

static bool continued(pid_t pid)
{
	int status;

	return waitpid(pid, &status, WCONTINUED | WNOHANG) == pid && WIFCONTINUED(status);
}

static void record_stop(int fd, pid_t pid, uint64_t since_ns, uint64_t start_boottime)
{
	struct ht_hold h = { .since_ns = since_ns, .start_boottime = start_boottime };
	__u32 key = pid;

	cr_assert(eq(int, bpf_map_update_elem(fd, &key, &h, BPF_ANY), 0));
}

static bool recorded(int fd, pid_t pid)
{
	struct ht_hold h;
	__u32 key = pid;

	return bpf_map_lookup_elem(fd, &key, &h) == 0;
}

static void end_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * The BPF side stamps a stop after the guardian read its clock: the stop's age is not
 * negative for long, and wrapped it looked older than any bound (ended at once).
 */
Test(guardian, a_stop_newer_than_the_clock_read_is_not_ended)
{
	uint64_t start;
	int fd = new_held_map();
	pid_t pid = stopped_child(&start);

	record_stop(fd, pid, monotonic_ns() + 5 * SECOND_NS, start);
	cr_expect(eq(u32, hold_end_all(fd, SECOND_NS), 0), "a stop made later is not due");
	cr_expect(recorded(fd, pid), "its record stays");
	cr_expect(continued(pid) == false, "it stays stopped");
	end_child(pid);
	close(fd);
}

Test(guardian, a_stop_older_than_the_bound_is_ended)
{
	uint64_t start;
	int fd = new_held_map();
	pid_t pid = stopped_child(&start);

	record_stop(fd, pid, monotonic_ns() - 2 * SECOND_NS, start);
	cr_expect(eq(u32, hold_end_all(fd, SECOND_NS), 1));
	cr_expect(recorded(fd, pid) == false, "its record is gone");
	cr_expect(continued(pid), "it was sent SIGCONT");
	end_child(pid);
	close(fd);
}

/* The one seen due was let go, and the process stopped again since: not that stop's end. */
Test(guardian, only_the_stop_made_then_is_ended)
{
	uint64_t start, since = monotonic_ns() - 2 * SECOND_NS;
	int fd = new_held_map();
	pid_t pid = stopped_child(&start);

	record_stop(fd, pid, since + 1, start);
	cr_expect(hold_end(fd, pid, since) == false, "a later stop of the same process");
	cr_expect(recorded(fd, pid));
	cr_expect(hold_end(fd, pid, since + 1), "the stop made then");
	cr_expect(continued(pid));
	end_child(pid);
	close(fd);
}
