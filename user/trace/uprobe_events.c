// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include "log.h"
#include "uprobe_events.h"

/*
 * One site: a uprobe event in heaptap's group of tracefs, with the program linked once, to
 * a perf event of the holder task. Not to each process's event: an event runs every
 * program linked to any of its perf events (they share one program array, of at most 64),
 * whichever of its processes hit it; its filter, the address spaces of the tasks its perf
 * events were opened for, decides only which processes have its breakpoints. So the
 * processes' events carry no program, and the holder's carries it with its cookie.
 *
 * The holder is a kernel thread: it has no address space, so its event places no
 * breakpoint anywhere, and keeps the event's last reference away from the processes'
 * detaches (only the last one pays the grace periods).
 */
struct site {
	uint64_t dev, inode, offset, cookie;
	int prog_fd;
	bool retprobe;
	int id;	    /* the tracepoint's id, for the processes' perf events */
	int holder; /* the program's link, on the holder's perf event */
	char name[16];
};

static struct {
	pthread_mutex_t lock;
	int err;	  /* why tracefs events cannot be used; 0 if they can */
	int control;	  /* uprobe_events, opened for appending */
	const char *root; /* where tracefs is mounted */
	pid_t holder_task;
	char group[32]; /* heaptap_<pid> */
	unsigned int seq;
	struct site *sites;
	size_t nr, cap;
} ev = { .lock = PTHREAD_MUTEX_INITIALIZER, .control = -1 };

#define PF_KTHREAD 0x00200000

/* Is pid a kernel thread (the flags of /proc/PID/stat)? */
static bool is_kthread(pid_t pid)
{
	char path[64], buf[512], *p;
	unsigned long flags = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* After the command's closing parenthesis: state ppid pgrp session tty tpgid flags. */
	p = p ? strrchr(buf, ')') : NULL;
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	return flags & PF_KTHREAD;
}

/* kthreadd, or any kernel thread this PID namespace shows; 0 if none. */
static pid_t find_kthread(void)
{
	struct dirent *e;
	pid_t found = 0;
	DIR *d;

	if (is_kthread(2))
		return 2;
	d = opendir("/proc");
	while (d && !found && (e = readdir(d))) {
		pid_t pid = atoi(e->d_name);

		if (pid > 0 && is_kthread(pid))
			found = pid;
	}
	if (d)
		closedir(d);
	return found;
}

static int command(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line written to uprobe_events; -errno (the kernel's reason). */
static int command(const char *fmt, ...)
{
	char line[PATH_MAX + 128];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(line))
		return -ENAMETOOLONG;
	if (write(ev.control, line, len) != len)
		return -errno;
	return 0;
}

/*
 * Groups of heaptaps that are gone (heaptap_<pid> of a process that is not): deleted. One
 * in use is busy, and the kernel keeps it: a heaptap that just exited has left it to its
 * child, which is removing it (heaptap uses tracefs events only where it sees kernel
 * threads, in the first PID namespace, where it sees every heaptap's pid). The number of
 * those left.
 */
static size_t remove_stale(size_t *removed)
{
	char path[96], line[PATH_MAX + 128], group[64], name[64];
	char (*stale)[128] = NULL;
	size_t nr = 0, cap = 0, busy = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/uprobe_events", ev.root);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char *end;
		long pid;

		if (sscanf(line, "%*c:%63[^/ ]/%63s", group, name) != 2 ||
		    strncmp(group, "heaptap_", 8))
			continue;
		pid = strtol(group + 8, &end, 10);
		if (*end || pid <= 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		/* Deleted once read: uprobe_events is not written while it is being read. */
		if (nr == cap) {
			void *grown = realloc(stale, (cap = cap ? cap * 2 : 32) * sizeof(*stale));

			if (!grown)
				break;
			stale = grown;
		}
		snprintf(stale[nr++], sizeof(*stale), "%s/%s", group, name);
	}
	if (f)
		fclose(f);
	for (size_t i = 0; i < nr; i++) {
		int err = command("-:%s\n", stale[i]);

		if (!err)
			(*removed)++;
		else if (err == -EBUSY)
			busy++;
	}
	free(stale);
	return busy;
}

/*
 * How long heaptap waits, at most, for a heaptap that just exited to remove its events:
 * each removal holds the kernel's event_mutex for its grace periods, and this heaptap's
 * probes would wait for it one by one, while the processes they are for are held. And
 * how long without one event fewer it waits (the child removes one every ~0.1 s).
 */
#define STALE_WAIT_MS 10000
#define STALE_STALL_MS 2000

static void remove_stale_events(void)
{
	size_t removed = 0, busy, fewest = (size_t)-1;
	long waited_ms = 0, progress_ms = 0;
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while ((busy = remove_stale(&removed)) && waited_ms < STALE_WAIT_MS &&
	       waited_ms - progress_ms < STALE_STALL_MS) {
		if (busy < fewest) {
			fewest = busy;
			progress_ms = waited_ms;
		}
		usleep(20 * 1000);
		clock_gettime(CLOCK_MONOTONIC, &now);
		waited_ms = (now.tv_sec - start.tv_sec) * 1000 +
			    (now.tv_nsec - start.tv_nsec) / 1000000;
	}
	if (waited_ms)
		log_debug("waited %ld ms for a heaptap that exited to remove its uprobe events%s",
			  waited_ms, busy ? " (some are still there)" : "");
	if (removed)
		log_debug("removed %zu uprobe events left in tracefs by heaptaps that are gone",
			  removed);
}

static void init(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[96];

	ev.err = -ENOENT;
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && ev.control < 0; i++) {
		snprintf(path, sizeof(path), "%s/uprobe_events", roots[i]);
		/* Never O_TRUNC: that would delete every uprobe event of the machine. */
		ev.control = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (ev.control < 0)
			ev.err = -errno;
		else
			ev.root = roots[i];
	}
	if (ev.control < 0) {
		log_debug("no uprobe_events in tracefs (/sys/kernel/tracing or "
			  "/sys/kernel/debug/tracing: %s): each probe is a uprobe PMU event of its "
			  "own, and detaching waits ~0.1 s per probe",
			  strerror(-ev.err));
		return;
	}
	ev.holder_task = find_kthread();
	if (!ev.holder_task) {
		ev.err = -ESRCH;
		close(ev.control);
		ev.control = -1;
		log_debug("no kernel thread in this PID namespace to hold tracefs uprobe events: "
			  "each probe is a uprobe PMU event of its own, and detaching waits ~0.1 s "
			  "per probe");
		return;
	}
	snprintf(ev.group, sizeof(ev.group), "heaptap_%d", getpid());
	remove_stale_events();
	ev.err = 0;
	log_debug("probes are uprobe events of %s/uprobe_events (group %s), each shared by "
		  "the processes and held by kernel thread %d",
		  ev.root, ev.group, ev.holder_task);
}

static int read_id(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC), id;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	id = n > 0 ? atoi(buf) : 0;
	return id > 0 ? id : -EINVAL;
}

/*
 * A perf event on tracepoint id for pid. Disabled: its filter takes pid's address space at
 * open all the same, and a disabled event is not scheduled in and out with pid's threads.
 */
static int tracepoint_event(int id, pid_t pid)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.disabled = 1;
	fd = syscall(__NR_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Define s in tracefs at path's offset, and link its program to the holder. */
static int define(struct site *s, const char *path)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .perf_event.bpf_cookie = s->cookie);
	char id_path[160];
	int pfd, err;

	snprintf(s->name, sizeof(s->name), "%c%u", s->retprobe ? 'r' : 'e', ++ev.seq);
	err = command("%c:%s/%s %s:0x%llx\n", s->retprobe ? 'r' : 'p', ev.group, s->name, path,
		      (unsigned long long)s->offset);
	if (err)
		return err;
	snprintf(id_path, sizeof(id_path), "%s/events/%s/%s/id", ev.root, ev.group, s->name);
	s->id = read_id(id_path);
	err = s->id < 0 ? s->id : 0;
	pfd = err ? err : tracepoint_event(s->id, ev.holder_task);
	if (pfd < 0) {
		err = pfd;
	} else {
		s->holder = bpf_link_create(s->prog_fd, pfd, BPF_PERF_EVENT, &opts);
		err = s->holder < 0 ? -errno : 0;
		/* The link holds the event. */
		close(pfd);
	}
	if (err)
		command("-:%s/%s\n", ev.group, s->name);
	return err;
}

static struct site *find(const struct stat *st, uint64_t offset, uint64_t cookie, int prog_fd,
			 bool retprobe)
{
	for (size_t i = 0; i < ev.nr; i++) {
		struct site *s = &ev.sites[i];

		if (s->dev == st->st_dev && s->inode == st->st_ino && s->offset == offset &&
		    s->cookie == cookie && s->prog_fd == prog_fd && s->retprobe == retprobe)
			return s;
	}
	return NULL;
}

/* The site's tracepoint id, defining it on first use; -errno. */
static int site_id(int prog_fd, const char *path, const struct stat *st, uint64_t offset,
		   uint64_t cookie, bool retprobe)
{
	static bool told;
	struct site *s;
	int err;

	s = find(st, offset, cookie, prog_fd, retprobe);
	if (s)
		return s->id;
	if (ev.nr == ev.cap) {
		size_t cap = ev.cap ? ev.cap * 2 : 32;
		struct site *grown = realloc(ev.sites, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		ev.sites = grown;
		ev.cap = cap;
	}
	s = &ev.sites[ev.nr];
	*s = (struct site){ st->st_dev, st->st_ino, offset, cookie, prog_fd, retprobe, -1, -1, "" };
	err = define(s, path);
	if (err) {
		if (!told)
			log_debug("cannot define a uprobe event in tracefs for %s (%s): such probes "
				  "are uprobe PMU events of their own",
				  path, strerror(-err));
		told = true;
		return err;
	}
	ev.nr++;
	return s->id;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

int uprobe_events__prepare(void)
{
	pthread_once(&once, init);
	return ev.err;
}

int uprobe_events__open(int prog_fd, const char *path, uint64_t offset, uint64_t cookie,
			pid_t pid, bool retprobe)
{
	struct stat st;
	int id;

	pthread_once(&once, init);
	/* uprobe_events separates its fields by white space: such a path cannot be given. */
	if (ev.err || pid <= 0 || strpbrk(path, " \t\n") || stat(path, &st))
		return -EOPNOTSUPP;
	pthread_mutex_lock(&ev.lock);
	id = site_id(prog_fd, path, &st, offset, cookie, retprobe);
	pthread_mutex_unlock(&ev.lock);
	if (id < 0)
		return -EOPNOTSUPP;
	return tracepoint_event(id, pid);
}

/* Bound on the child's work: ~0.1 s per site, however many heaptaps wait in the kernel. */
#define RELEASE_BOUND_S 120
/* How long the child tries again to delete a definition still in use. */
#define BUSY_RETRY_MS 30000

/* Delete a definition (its command emptied once done); false while it is in use. */
static bool delete_site(char *cmd)
{
	if (*cmd && write(ev.control, cmd, strlen(cmd)) < 0 && errno != ENOENT)
		return false;
	*cmd = '\0'; /* deleted, by this or the next heaptap */
	return true;
}

/*
 * Drop each holder's link, then delete the definition. One still in use (a perf event of
 * heaptap's own, until heaptap has exited) is tried again every 50 ms, within retry_ms.
 */
static void remove_sites(const struct site *sites, size_t nr, char *cmds, size_t stride,
			 unsigned int retry_ms)
{
	size_t left = nr;

	for (size_t i = 0; i < nr; i++) {
		close(sites[i].holder);
		left -= delete_site(cmds + i * stride);
	}
	for (unsigned int waited = 0; left && waited < retry_ms; waited += 50) {
		usleep(50 * 1000);
		for (size_t i = 0; i < nr; i++)
			left -= cmds[i * stride] && delete_site(cmds + i * stride);
	}
}

/*
 * In the child: nothing but system calls (heaptap has threads, whose locks a fork may
 * have copied held), and no descriptor but these, so that a pipe heaptap's output goes
 * into ends when heaptap exits. It starts once heaptap has closed its copies of the links
 * (gate): else heaptap's close could be the last, and pay the grace periods.
 */
static void __attribute__((noreturn)) remove_in_child(const int *keep, size_t nr_keep, int gate,
						      char *cmds, size_t stride)
{
	unsigned int from = 0;
	sigset_t none;
	char c;

	setsid(); /* out of heaptap's terminal: a ^C after heaptap ends is not for it */
	for (size_t i = 0; i < nr_keep; i++) {
		if ((unsigned int)keep[i] > from)
			syscall(SYS_close_range, from, keep[i] - 1, 0);
		from = keep[i] + 1;
	}
	syscall(SYS_close_range, from, ~0u, 0);
	signal(SIGALRM, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Past it, the kernel closes what is left as the child exits: only definitions stay. */
	alarm(RELEASE_BOUND_S);
	while (read(gate, &c, 1) < 0 && errno == EINTR)
		;
	remove_sites(ev.sites, ev.nr, cmds, stride, BUSY_RETRY_MS);
	_exit(0);
}

/*
 * Hand the sites to a child of heaptap's, which nobody waits for (heaptap waits only for
 * the commands it runs, by their pid); heaptap closes its copies of the links, which costs
 * nothing while the child holds them. 0, or -errno when no child could be made.
 */
static int hand_over(char *cmds, size_t stride)
{
	int *keep = malloc((ev.nr + 2) * sizeof(*keep)), gate[2];
	size_t nr_keep = 0;
	pid_t child;

	if (!keep || pipe2(gate, O_CLOEXEC)) {
		free(keep);
		return keep ? -errno : -ENOMEM;
	}
	keep[nr_keep++] = ev.control;
	keep[nr_keep++] = gate[0];
	for (size_t i = 0; i < ev.nr; i++)
		keep[nr_keep++] = ev.sites[i].holder;
	/* Sorted, for closing the gaps between them. */
	for (size_t i = 1; i < nr_keep; i++) {
		for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int fd = keep[j];

			keep[j] = keep[j - 1];
			keep[j - 1] = fd;
		}
	}
	child = fork();
	if (child == 0)
		remove_in_child(keep, nr_keep, gate[0], cmds, stride);
	free(keep);
	if (child < 0) {
		close(gate[0]);
		close(gate[1]);
		return -errno;
	}
	for (size_t i = 0; i < ev.nr; i++)
		close(ev.sites[i].holder);
	/* The child's go. */
	close(gate[1]);
	close(gate[0]);
	return 0;
}

void uprobe_events__release(void)
{
	enum { STRIDE = 64 };
	char *cmds;
	int err;

	pthread_mutex_lock(&ev.lock);
	if (!ev.nr)
		goto out;
	cmds = calloc(ev.nr, STRIDE);
	for (size_t i = 0; cmds && i < ev.nr; i++)
		snprintf(cmds + i * STRIDE, STRIDE, "-:%s/%s\n", ev.group, ev.sites[i].name);
	err = cmds ? hand_over(cmds, STRIDE) : -ENOMEM;
	if (err) {
		log_debug("cannot hand the uprobe events over to a child (%s): removing them takes "
			  "~0.1 s each",
			  strerror(-err));
		if (cmds) {
			remove_sites(ev.sites, ev.nr, cmds, STRIDE, 0);
		} else {
			for (size_t i = 0; i < ev.nr; i++)
				close(ev.sites[i].holder);
		}
	}
	free(cmds);
	free(ev.sites);
	ev.sites = NULL;
	ev.nr = ev.cap = 0;
out:
	pthread_mutex_unlock(&ev.lock);
}
