// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include "guardian.h"
#include "heaptap_types.h"

struct guardian {
	pid_t pid;
	int alive_fd; /* write end: open as long as heaptap lives */
	bool exited;
};

/* How often the guardian looks at the stops, and how long it keeps looking after heaptap. */
#define TICK_MS 50
#define LINGER_MS 1000

/* The start time of /proc/PID/stat (field 22, clock ticks since boot), or 0. */
static uint64_t start_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ticks = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The command name may hold spaces and parentheses: fields follow the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
			 "%*d %*d %*d %*d %llu", &ticks) != 1)
		return 0;
	return ticks;
}

bool hold_end(int held_fd, pid_t pid, uint64_t since_ns)
{
	struct ht_hold h;
	__u32 key = pid;
	long ns_per_tick = 1000000000L / sysconf(_SC_CLK_TCK);
	unsigned long long ticks;
	bool sent = false;
	int pidfd;

	/* A later stop of the same process is not this one's to end. */
	if (bpf_map_lookup_elem(held_fd, &key, &h) || (since_ns && h.since_ns != since_ns))
		return false;
	/* Pin the process first, then check it is the one stopped: its pid cannot move. */
	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0 && errno != ESRCH)
		return false; /* out of descriptors: the guardian lets it go at the bound */
	ticks = pidfd < 0 ? 0 : start_ticks(pid);
	if (pidfd >= 0 && !ticks) {
		close(pidfd); /* its start unreadable now (descriptors): as above */
		return false;
	}
	if (pidfd < 0 || ticks != h.start_boottime / ns_per_tick) {
		bpf_map_delete_elem(held_fd, &key); /* gone: nothing to let go */
		if (pidfd >= 0)
			close(pidfd);
		return false;
	}
	if (bpf_map_delete_elem(held_fd, &key) == 0)
		sent = syscall(SYS_pidfd_send_signal, pidfd, SIGCONT, NULL, 0) == 0;
	close(pidfd);
	return sent;
}

unsigned int hold_end_all(int held_fd, uint64_t min_age_ns)
{
	__u32 key, next, *prev = NULL;
	struct {
		pid_t pid;
		uint64_t since_ns;
	} due[256];
	unsigned int nr = 0, ended = 0;

	/* Collect first: deleting while walking a hash map restarts the walk. */
	while (nr < sizeof(due) / sizeof(due[0]) &&
	       bpf_map_get_next_key(held_fd, prev, &next) == 0) {
		struct ht_hold h;

		/*
		 * Its age from a clock read after the stop was: one read before the walk would
		 * find a stop made since in the future, and end it at once (its age wrapped).
		 */
		if (bpf_map_lookup_elem(held_fd, &next, &h) == 0 &&
		    (!min_age_ns || (int64_t)(monotonic_ns() - h.since_ns) >= (int64_t)min_age_ns))
			due[nr++] = (typeof(due[0])){ next, h.since_ns };
		key = next;
		prev = &key;
	}
	for (unsigned int i = 0; i < nr; i++)
		ended += hold_end(held_fd, due[i].pid, due[i].since_ns);
	return ended;
}

int hold_control_set(int control_fd, bool disabled, uint64_t heartbeat_ns)
{
	struct ht_hold_control c;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(control_fd, &zero, &c))
		return -errno;
	c.disabled = disabled;
	if (heartbeat_ns)
		c.heartbeat_ns = heartbeat_ns;
	return bpf_map_update_elem(control_fd, &zero, &c, BPF_ANY) ? -errno : 0;
}

static volatile sig_atomic_t told_to_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	told_to_stop = 1;
}

/* Keep only the fds the guardian needs: above all, no probe link may stay open in it. */
static void close_other_fds(const int keep[], size_t nr)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *d;
	int fds[1024];
	size_t n = 0;

	if (dir) {
		while ((d = readdir(dir)) && n < sizeof(fds) / sizeof(fds[0])) {
			int fd = atoi(d->d_name);
			bool kept = d->d_name[0] == '.' || fd == dirfd(dir);

			for (size_t i = 0; i < nr && !kept; i++)
				kept = fd == keep[i];
			if (!kept)
				fds[n++] = fd;
		}
		closedir(dir);
	}
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
	/* Standard streams on /dev/null: nobody waits for a pipe the guardian holds. */
	int null = open("/dev/null", O_RDWR);

	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
}

uint64_t hold_bound_ns(void)
{
	const char *text = getenv("HEAPTAP_HOLD_BOUND_MS");
	char *end;
	long ms = text ? strtol(text, &end, 10) : 0;

	if (!text || *end || ms < 100 || ms > 60000)
		ms = HT_HOLD_BOUND_MS;
	return (uint64_t)ms * 1000000ull;
}

static void __attribute__((noreturn)) guard(int alive_fd, int held_fd, int control_fd)
{
	const int keep[] = { alive_fd, held_fd, control_fd };
	struct sigaction sa = { .sa_handler = on_stop_signal };
	struct pollfd pfd = { .fd = alive_fd, .events = POLLIN };
	uint64_t bound_ns = hold_bound_ns();

	setsid();
	prctl(PR_SET_NAME, "heaptap-guard");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	close_other_fds(keep, 3);

	while (!told_to_stop) {
		char c;
		int n = poll(&pfd, 1, TICK_MS);

		if (n > 0 && read(alive_fd, &c, 1) <= 0)
			break; /* EOF: heaptap is gone */
		hold_end_all(held_fd, bound_ns);
	}
	/* heaptap's BPF programs may outlive it a moment (their links close one by one). */
	hold_control_set(control_fd, true, 0);
	for (uint64_t end = monotonic_ns() + LINGER_MS * 1000000ull; monotonic_ns() < end;) {
		hold_end_all(held_fd, 0);
		usleep(TICK_MS * 1000);
	}
	_exit(0);
}

int guardian__start(int held_fd, int control_fd, struct guardian **out)
{
	struct guardian *g = calloc(1, sizeof(*g));
	int alive[2];

	if (!g)
		return -ENOMEM;
	if (pipe2(alive, O_CLOEXEC)) {
		free(g);
		return -errno;
	}
	g->pid = fork();
	if (g->pid < 0) {
		int err = -errno;

		close(alive[0]);
		close(alive[1]);
		free(g);
		return err;
	}
	if (g->pid == 0) {
		close(alive[1]);
		guard(alive[0], held_fd, control_fd);
	}
	close(alive[0]);
	g->alive_fd = alive[1];
	*out = g;
	return 0;
}

bool guardian__alive(struct guardian *g)
{
	if (!g->exited && waitpid(g->pid, NULL, WNOHANG) == g->pid)
		g->exited = true;
	return !g->exited;
}

void guardian__free(struct guardian *g)
{
	if (!g)
		return;
	close(g->alive_fd);
	/* It lingers a second for stragglers; it is in its own session, init reaps it. */
	if (!g->exited)
		waitpid(g->pid, NULL, WNOHANG);
	free(g);
}
