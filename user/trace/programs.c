// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The programs targets run: attaching to one, holding a new one at exec and at loader
 * events until its allocator is probed, and following the processes targets start.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "log.h"
#include "procfs.h"
#include "privilege.h"
#include "probe_site.h"
#include "procmaps.h"
#include "rank.h"
#include "os_calls.h"
#include "session_internal.h"

/*
 * Its command line, arguments space-separated, into command (left as it was if it cannot
 * be read). The line is empty while the process is between two programs (an exec under
 * way): then its name. Gone, it has neither, and a call of it names it (consumer.c).
 */
static void read_command(pid_t pid, char *command, size_t size)
{
	size_t len = 0;
	char *text = NULL;

	if (procfs_read(pid, "cmdline", &text, &len))
		return;
	if (len == 0) {
		free(text);
		text = NULL;
		if (procfs_read(pid, "comm", &text, &len))
			return;
		len = strcspn(text, "\n");
	}
	for (size_t i = 0; i + 1 < len; i++) {
		if (text[i] == '\0')
			text[i] = ' ';
	}
	if (len)
		snprintf(command, size, "%.*s", (int)len, text);
	free(text);
}

/* Command line and rank: read again after exec, when they are the new program's. */
static void describe(struct target *t)
{
	/* Unless an event told it: found by attaching, so still there to be read. */
	if (t->uid == (uid_t)-1)
		t->uid = procfs_uid(t->pid);
	mpi_identity_of_process(t->pid, &t->mpi);
	read_command(t->pid, t->command, sizeof(t->command));
}

/* The object defining _dl_debug_state among maps: the dynamic loader. */
static struct object_file *loader_of(struct session *s, pid_t pid, const struct procmaps *maps)
{
	for (size_t i = 0; i < maps->nr; i++) {
		const struct mapping *m = &maps->maps[i];
		struct object_file *obj;

		if (!m->executable || m->path[0] != '/')
			continue;
		obj = symcache__get_mapped(s->cache, pid, m);
		if (obj && obj->syms && elfsyms__offset_of(obj->syms, "_dl_debug_state"))
			return obj;
	}
	return NULL;
}

/* Place the allocator probes once the process maps its allocator. 0, -ENOENT, -errno. */
static int probe_allocator(struct session *s, struct target *t, const struct procmaps *maps)
{
	int err = allocator__find(t->pid, maps, s->cache, &t->alloc);

	if (err)
		return err;
	err = tracer__attach_allocator(s->tracer, t->pid, &t->alloc);
	if (err)
		return err;
	t->symbolizer = new_symbolizer(s, t);
	if (!t->symbolizer)
		return -errno;
	t->probed = true;
	log_debug("pid %d: probes on %s%s", t->pid, t->alloc.path,
		  t->alloc.glibc ? "" : " (block sizes unknown: usable = requested)");
	return 0;
}

/*
 * Probe the --allocator APIs' functions in the objects maps has (once the malloc family is
 * probed, the program's start-up objects are all mapped). A function none defines then
 * stops the session: the spec does not fit the program.
 */
static void probe_custom(struct session *s, struct target *t, const struct procmaps *maps)
{
	char problem[sizeof(s->problem)];
	int err;

	if (!s->nr_allocators || !t->probed)
		return;
	err = custom_allocs__probe(&(struct custom_apis){ s->tracer, s->cache, s->allocators,
							  s->nr_allocators },
				   t, maps, problem, sizeof(problem));
	if (err == -ENOENT && !s->problem[0])
		snprintf(s->problem, sizeof(s->problem), "%s", problem);
	else if (err)
		log_error("pid %d: cannot probe its --allocator functions: %s", t->pid,
			  strerror(-err));
}

/*
 * Give the target's code its unwind tables: at attach, and each time the loader maps
 * objects, before the process runs on (it is held at loader events). Without a table a
 * frame is walked by frame pointers, so a failure here costs stack quality, not events.
 */
static void give_tables(struct session *s, struct target *t, const struct procmaps *maps)
{
	int err;

	if (!s->unwind)
		return;
	err = unwind_maps__update(s->unwind, t->pid, maps);
	tracer__stacks_changed(s->tracer);
	if (err)
		log_error("pid %d: cannot load unwind tables: %s", t->pid, strerror(-err));
}

/* The same, reading the mappings first. */
static void give_tables_now(struct session *s, struct target *t)
{
	struct procmaps maps = {};

	if (s->unwind && procmaps__read(t->pid, &maps) == 0)
		give_tables(s, t, &maps);
	procmaps__clear(&maps);
}

static int attach(struct session *s, pid_t pid)
{
	struct procmaps maps = {};
	struct object_file *loader;
	struct target *t;
	int err;

	if (target_of(s, pid))
		return 0;
	/* A zombie has exited already: nothing is left to trace. */
	if ((kill(pid, 0) && errno == ESRCH) || procfs_state(pid) == 'Z')
		return -ESRCH;
	err = procmaps__read(pid, &maps);
	if (err)
		return err;
	if (maps.nr == 0) {
		err = -EINVAL; /* kernel threads have no user memory */
		goto cleanup;
	}
	t = new_target(s, pid);
	if (!t) {
		err = -ENOMEM;
		goto cleanup;
	}
	describe(t);
	seed_mapped_ranges(s, t); /* before its calls are traced */
	/* With tables, loader events hold it: a dlopen'ed library needs its table first. */
	err = tracer__add_target(s->tracer, pid, s->unwind != NULL);
	if (err)
		goto forget;
	give_tables(s, t, &maps); /* before the probes: the first calls get whole stacks */
	err = probe_allocator(s, t, &maps);
	if (err)
		goto forget;
	probe_custom(s, t, &maps);
	/* Later dlopen()s: the loader tells us, and the symbolizer rereads the maps. */
	loader = loader_of(s, pid, &maps);
	if (loader)
		err = tracer__attach_loader(
			s->tracer, pid, loader->read_path,
			probe_site__place(loader, elfsyms__offset_of(loader->syms,
								     "_dl_debug_state")));
	if (!err)
		goto cleanup;
forget:
	/* Nothing half-attached stays behind: it could be tried again later. */
	tracer__detach(s->tracer, pid);
	forget_program(s, t);
	drop_target(s, t);
cleanup:
	procmaps__clear(&maps);
	return err;
}

/* A program heaptap can probe: a dynamic one, or a static one that kept malloc's symbol. */
static int check_program(struct object_file *exe)
{
	if (!exe->syms)
		return -ENOEXEC;
	if (!elfsyms__interp(exe->syms) && !elfsyms__offset_of(exe->syms, "malloc"))
		return -ENOENT;
	return 0;
}

static int expect_exec(struct session *s, pid_t pid, const char *path)
{
	struct object_file *exe;
	struct target *t;
	struct stat st;
	int err;

	if (stat(path, &st))
		return -errno;
	exe = symcache__get(s->cache, st.st_dev, st.st_ino, path);
	if (!exe)
		return -ENOMEM;
	err = check_program(exe);
	if (err)
		return err;
	t = new_target(s, pid);
	if (!t)
		return -ENOMEM;
	snprintf(t->command, sizeof(t->command), "%s", path);
	t->uid = procfs_uid(pid); /* waiting for its go: the exec event tells it again */
	t->held = true;
	return tracer__add_command(s->tracer, pid);
}

/*
 * A target, held at exec, runs a new program: probe a static one's malloc now, or a
 * dynamic one's loader, which will stop it again once libc is mapped. 0 or -errno.
 */
static int prepare_program(struct session *s, struct target *t)
{
	char exe_path[64], interp_path[4096];
	struct object_file *exe, *loader;
	const char *interp;
	struct stat st;
	uint64_t hook;
	int err;

	snprintf(exe_path, sizeof(exe_path), "/proc/%d/exe", t->pid);
	if (stat(exe_path, &st))
		return -errno;
	exe = symcache__get(s->cache, st.st_dev, st.st_ino, exe_path);
	if (!exe)
		return -ENOMEM;
	err = check_program(exe);
	if (err)
		return err;
	interp = elfsyms__interp(exe->syms);
	if (!interp) {
		/* A static program is its own allocator: name it as it is mapped. */
		char mapped[4096];
		ssize_t len = readlink(exe_path, mapped, sizeof(mapped) - 1);

		mapped[len > 0 ? len : 0] = '\0';
		allocator__from_object(mapped, exe, &t->alloc);
		give_tables_now(s, t);
		err = tracer__attach_allocator(s->tracer, t->pid, &t->alloc);
		if (err)
			return err;
		t->probed = true;
		t->symbolizer = new_symbolizer(s, t);
		return t->symbolizer ? 0 : -errno;
	}
	procfs_root_path(t->pid, interp, interp_path, sizeof(interp_path));
	if (stat(interp_path, &st))
		return -errno;
	loader = symcache__get(s->cache, st.st_dev, st.st_ino, interp_path);
	if (!loader || !loader->syms || !elfsyms__offset_of(loader->syms, "_dl_debug_state"))
		return -ENOENT;
	hook = elfsyms__offset_of(loader->syms, "_dl_debug_state");
	return tracer__attach_loader(s->tracer, t->pid, loader->read_path,
				     probe_site__place(loader, hook));
}

/*
 * Let a target held until its probes were placed run on. With unwind tables a traced one
 * stays held at loader events, so that what it loads later gets a table before it runs.
 */
static void release(struct session *s, struct target *t)
{
	/* A launcher (run's command) is held only until probed: it relays SIGCONT. */
	if (t->untraced || !s->unwind || t->launcher)
		tracer__release_hold(s->tracer, t->pid);
	t->held = false;
}

/*
 * A new image in a traced process: the old one's report is closed as it was at the exec
 * (if it made any call), and the new image starts from zero.
 */
static struct target *new_image(struct session *s, struct target *old)
{
	struct target *t;

	if (old->probed && !old->untraced && accountant__calls(&old->stats) > 0) {
		old->exec = true;
		end_target(s, old);
		t = new_target(s, old->pid);
		if (!t)
			return NULL;
		t->parent = old->parent;
		t->held = old->held;
		return t;
	}
	forget_program(s, old);
	old->probed = false;
	memset(&old->alloc, 0, sizeof(old->alloc));
	mapping_stats__clear(&old->mappings); /* the old image's mappings are gone */
	return old;
}

/* A held event read after its stop ran out (the guardian ended it): the process ran on. */
static bool read_after_hold_ran_out(struct session *s, const struct ht_libs_event *ev,
				    const char *what)
{
	if (!ev->held || tracer__held(s->tracer, ev->pid, ev->hold_since))
		return false;
	log_debug("pid %d: %s read after its hold ran out", ev->pid, what);
	return true;
}

void handle_exec(struct session *s, const struct ht_libs_event *ev)
{
	struct target *t = target_of(s, ev->pid);
	bool ran_out = read_after_hold_ran_out(s, ev, "its exec");
	const char *why;
	int err;

	if (t && (t = new_image(s, t))) {
		t->holds_ran_out += ran_out;
		t->uid = ev->uid; /* as the new program starts: setuid() before exec is common */
		/*
		 * The new image's tables now, from its mappings as they are: read late (its hold
		 * ran out while this consumer was behind), the process may have run on and loaded
		 * its libraries, which the hold thread gave tables to; forgetting the old image
		 * took those away, and its calls' stacks were cut in the first library without
		 * frame pointers until its next loader event (40 calls of a rank at MPI_Init).
		 */
		give_tables_now(s, t);
		describe(t);
		t->launcher = process_is_launcher(t->pid);
		seed_mapped_ranges(s, t); /* held at its exec: nothing of the new image ran yet */
		t->untraced = s->mpi_only && t->mpi.rank < 0;
		if (t->untraced) {
			release(s, t); /* a launcher: only its children matter */
		} else if (may_trace(t->pid, &why)) {
			/* A setuid program, say: its user may not look inside it. */
			session__note_untraced(s, t->pid, why);
			t->untraced = true;
			release(s, t);
		} else if ((err = prepare_program(s, t))) {
			session__note_untraced(s, t->pid, err == -ENOENT ?
				"no malloc heaptap can probe" : strerror(-err));
			t->untraced = true;
			release(s, t);
		} else if (t->symbolizer) {
			release(s, t); /* static: all set already */
		}
	}
	if (ev->held)
		tracer__resume(s->tracer, ev->pid, ev->hold_since);
}

static int follow(struct session *s, pid_t pid)
{
	struct target *t;

	if (target_of(s, pid))
		return 0;
	t = new_target(s, pid);
	if (!t)
		return -ENOMEM;
	t->untraced = true;
	describe(t);
	return tracer__add_target(s->tracer, pid, false);
}

void session__follow_launchers(struct session *s)
{
	tracer__follow_launchers(s->tracer);
}

/* A launcher started: the kernel side already follows it. */
void handle_launcher(struct session *s, const struct ht_fork_event *ev)
{
	struct target *t;

	if (target_of(s, ev->pid) || !(t = new_target(s, ev->pid)))
		return;
	t->uid = ev->uid;
	t->untraced = true;
	describe(t);
	log_debug("following launcher %d (%s)", t->pid, t->command);
}

/* A target started a process: it runs the parent's program until it execs, if it does. */
void handle_fork(struct session *s, const struct ht_fork_event *ev)
{
	struct target *parent = target_of(s, ev->parent), *t;

	if (!parent || target_of(s, ev->pid) || !(t = new_target(s, ev->pid)))
		return;
	t->parent = ev->parent;
	t->uid = ev->uid;
	t->held = true; /* the kernel side holds it at its exec */
	t->untraced = parent->untraced;
	describe(t);
	if (!parent->probed || t->untraced)
		return;
	t->alloc = parent->alloc;
	give_tables_now(s, t);
	if (tracer__attach_allocator(s->tracer, t->pid, &t->alloc) == 0) {
		struct procmaps maps = {};

		t->probed = true;
		t->symbolizer = new_symbolizer(s, t);
		/* The parent's --allocator functions, in the same objects. */
		if (s->nr_allocators && procmaps__read(t->pid, &maps) == 0)
			probe_custom(s, t, &maps);
		procmaps__clear(&maps);
	}
}

/*
 * A held loader event, ahead of the calls queued before it: give the new code its tables
 * (and the allocator its probes, once it is mapped), and let the process run on. Its maps
 * wait for the event's place in the stream, for the symbolizer. Anything else (an error
 * to report) is left to the ordered event, as is the event if these maps cannot be kept.
 */
void handle_hold_early(struct session *s, const struct ht_libs_event *ev,
		       struct procmaps *maps)
{
	struct target *t = target_of(s, ev->pid);
	int err = 0;

	if (!t || t->untraced || !ev->held)
		return;
	give_tables(s, t, maps);
	if (!t->probed)
		err = probe_allocator(s, t, maps);
	probe_custom(s, t, maps);
	if ((err && err != -ENOENT) || held_maps__push(&t->held_maps, ev->hold_since, maps))
		return;
	if (t->held && t->probed && t->symbolizer)
		release(s, t);
	tracer__resume(s->tracer, ev->pid, ev->hold_since);
}

void handle_libs_changed(struct session *s, const struct ht_libs_event *ev)
{
	struct target *t = target_of(s, ev->pid);
	struct procmaps maps = {};
	bool early;
	int err = 0;

	if (!t || t->untraced) {
		if (ev->held)
			tracer__resume(s->tracer, ev->pid, ev->hold_since);
		return;
	}
	/*
	 * No new code: nothing needs a table or a name (code unmapped since keeps its names
	 * for the calls queued before). Half of a rank's ~140 loader events.
	 */
	if (ev->same_code && t->probed)
		return;
	/* Handled already, and running on since: only the symbolizer waited for this place. */
	early = ev->held && held_maps__take(&t->held_maps, ev->hold_since, &maps);
	if (!early && read_after_hold_ran_out(s, ev, "a loader event"))
		t->holds_ran_out++;
	if (!early && procmaps__read(t->pid, &maps) == 0) {
		give_tables(s, t, &maps);
		if (!t->probed)
			err = probe_allocator(s, t, &maps);
		probe_custom(s, t, &maps);
	}
	if (err && err != -ENOENT) { /* ENOENT: libc is not mapped yet */
		char reason[128];

		snprintf(reason, sizeof(reason), "cannot probe %.64s: %s", t->alloc.path,
			 strerror(-err));
		session__note_untraced(s, t->pid, reason);
		t->untraced = true;
		release(s, t);
	}
	/* The symbolizer takes the maps just read: a rank's start has ~70 loader events. */
	if (t->symbolizer)
		symbolizer__mappings_changed(t->symbolizer, maps.nr ? &maps : NULL);
	procmaps__clear(&maps);
	if (t->held && t->probed && t->symbolizer)
		release(s, t);
	if (ev->held && !early)
		tracer__resume(s->tracer, ev->pid, ev->hold_since);
}

/*
 * The commands' ways in, from the main thread: with the lock of the consumer that will own
 * pid (which may be delivering its events now), then the shared one.
 */
int session__attach(struct session *s, pid_t pid)
{
	struct consumer *c = consumer_of(s, pid);
	int err;

	consumer_lock(c);
	shared_lock(s);
	err = attach(s, pid);
	shared_unlock(s);
	consumer_unlock(c);
	return err;
}

int session__expect_exec(struct session *s, pid_t pid, const char *path)
{
	struct consumer *c = consumer_of(s, pid);
	int err;

	consumer_lock(c);
	shared_lock(s);
	err = expect_exec(s, pid, path);
	shared_unlock(s);
	consumer_unlock(c);
	return err;
}

int session__follow(struct session *s, pid_t pid)
{
	struct consumer *c = consumer_of(s, pid);
	int err;

	consumer_lock(c);
	shared_lock(s);
	err = follow(s, pid);
	shared_unlock(s);
	consumer_unlock(c);
	return err;
}
