// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Each traced process's probes: the allocator's, the loader's hook and the --allocator
 * APIs', placed once per file and removed off the event loop (tracer_internal.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "log.h"
#include "sampling.h"
#include "tracer_internal.h"
#include "uprobe_links.h"

static struct target_links *links_of(struct tracer *t, pid_t pid)
{
	struct target_links *tl;

	HASH_FIND_INT(t->targets, &pid, tl);
	if (tl)
		return tl;
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return NULL;
	tl->pid = pid;
	tl->allocator.fds[0] = tl->allocator.fds[1] = -1;
	tl->loader.fds[0] = tl->loader.fds[1] = -1;
	for (int i = 0; i < TRACER_MAX_CUSTOM_FILES; i++)
		tl->custom[i].fds[0] = tl->custom[i].fds[1] = -1;
	HASH_ADD_INT(t->targets, pid, tl);
	return tl;
}

/* Remove a file's probes (off the event loop). */
static void unprobe(struct tracer *t, struct probed_file *f)
{
	/* Entries go before returns, so no call is left entered but never returned. */
	if (f->fds[0] >= 0 || f->fds[1] >= 0)
		link_reaper__close(t->reaper, f->fds[0], f->fds[1]);
	f->fds[0] = f->fds[1] = -1;
	f->dev = f->inode = f->offset = 0;
}

/* Is f already probed, at this offset? Else clear it for new probes. */
static bool probed_already(struct tracer *t, struct probed_file *f, uint64_t dev, uint64_t inode,
			   uint64_t offset)
{
	if (f->fds[0] >= 0 && f->dev == dev && f->inode == inode && f->offset == offset)
		return true;
	unprobe(t, f);
	f->dev = dev;
	f->inode = inode;
	f->offset = offset;
	return false;
}

/* With hold, its entry in the map `hold`: no code seen yet, and hold_flags. */
static int add_target(struct tracer *t, pid_t pid, bool hold, __u32 hold_flags)
{
	__u32 key = pid, code_seen = hold_flags;
	__u8 one = 1;

	if (!links_of(t, pid))
		return -ENOMEM;
	if (bpf_map__update_elem(t->skel->maps.targets, &key, sizeof(key), &one, sizeof(one),
				 BPF_ANY))
		return -errno;
	if (hold && bpf_map__update_elem(t->skel->maps.hold, &key, sizeof(key), &code_seen,
					 sizeof(code_seen), BPF_ANY))
		return -errno;
	return 0;
}

int tracer__add_target(struct tracer *t, pid_t pid, bool hold)
{
	return add_target(t, pid, hold, 0);
}

int tracer__add_command(struct tracer *t, pid_t pid)
{
	return add_target(t, pid, true, HT_HOLD_EVEN_LAUNCHER);
}

static int attach(pid_t pid, struct bpf_program *prog, bool retprobe, const char *path,
		  const uint64_t *offsets, const uint64_t *cookies, size_t nr)
{
	int fd = uprobe_multi__attach(bpf_program__fd(prog), path, offsets, cookies, nr, pid,
				      retprobe);

	if (fd < 0)
		log_debug("pid %d: cannot probe %s: %s", pid, path, strerror(-fd));
	return fd;
}

int tracer__attach_loader(struct tracer *t, pid_t pid, const char *path, uint64_t offset)
{
	struct target_links *tl = links_of(t, pid);
	uint64_t cookie = 0;
	struct stat st;
	int fd;

	if (!tl)
		return -ENOMEM;
	if (stat(path, &st))
		return -errno;
	if (probed_already(t, &tl->loader, st.st_dev, st.st_ino, offset))
		return 0;
	fd = attach(pid, t->skel->progs.loader_changed, false, path, &offset, &cookie, 1);
	if (fd < 0)
		return fd;
	tl->loader.fds[0] = fd;
	return 0;
}

int tracer__attach_allocator(struct tracer *t, pid_t pid, const struct allocator *alloc)
{
	uint64_t entries[HT_NR_FUNCS], entry_funcs[HT_NR_FUNCS];
	uint64_t returns[HT_NR_FUNCS], return_funcs[HT_NR_FUNCS];
	struct target_links *tl = links_of(t, pid);
	size_t nr_entries = 0, nr_returns = 0;
	uint64_t free_site = 0, free_cookie = 0;
	int fd;

	if (!tl)
		return -ENOMEM;
	if (probed_already(t, &tl->allocator, alloc->dev, alloc->inode, 0))
		return 0;
	for (int f = 0; f < HT_NR_FUNCS; f++) {
		uint64_t cookie = HT_COOKIE(f | (alloc->pages_readable ? HT_COOKIE_MIMALLOC : 0),
					    alloc->sites[f] - alloc->offsets[f]);

		if (!alloc->offsets[f] || allocator__is_alias(alloc, f))
			continue;
		/* With session uprobes, free has a program and a link of its own (alloc.bpf.c). */
		if (t->session_uprobes && f == HT_FREE) {
			free_site = alloc->sites[f];
			free_cookie = cookie;
			continue;
		}
		/*
		 * Both probes on the site: the return address is still at [rsp] there. The
		 * cookie tells the entry program how far past the entry it sits.
		 */
		entries[nr_entries] = alloc->sites[f];
		entry_funcs[nr_entries++] = cookie;
		/* free reports at its entry; it has nothing to return. */
		if (f != HT_FREE) {
			returns[nr_returns] = alloc->sites[f];
			return_funcs[nr_returns++] = cookie;
		}
	}
	if (nr_entries == 0)
		return -ENOENT;
	if (t->session_uprobes) {
		/* One link: each entry says whether its return runs; and free's. */
		fd = sampling__attach_session(bpf_program__fd(t->skel->progs.alloc_session),
					      alloc->open_path, entries, entry_funcs, nr_entries,
					      pid);
		if (fd < 0)
			return fd;
		tl->allocator.fds[0] = fd;
		if (!free_site)
			return 0;
		fd = attach(pid, t->skel->progs.sampled_free, false, alloc->open_path, &free_site,
			    &free_cookie, 1);
		if (fd < 0) {
			unprobe(t, &tl->allocator);
			return fd;
		}
		tl->allocator.fds[1] = fd;
		return 0;
	}
	/*
	 * Returns first: the process runs while its probes come in, and an entry seen without
	 * its return would leave the thread's depth above zero and hide all its later calls.
	 * A return seen without its entry is ignored.
	 */
	if (nr_returns) {
		fd = attach(pid, t->skel->progs.alloc_return, true, alloc->open_path, returns,
			    return_funcs, nr_returns);
		if (fd < 0)
			return fd;
		tl->allocator.fds[1] = fd;
	}
	fd = attach(pid, t->skel->progs.alloc_entry, false, alloc->open_path, entries,
		    entry_funcs, nr_entries);
	if (fd < 0) {
		unprobe(t, &tl->allocator);
		return fd;
	}
	tl->allocator.fds[0] = fd;
	return 0;
}

int tracer__attach_custom(struct tracer *t, pid_t pid, const char *path, uint64_t dev,
			  uint64_t inode, const uint64_t *offsets, const uint64_t *cookies,
			  size_t nr)
{
	struct target_links *tl = links_of(t, pid);
	uint64_t returns[nr ? nr : 1], return_cookies[nr ? nr : 1];
	struct probed_file *f = NULL;
	size_t nr_returns = 0;
	int fd;

	if (!tl)
		return -ENOMEM;
	for (int i = 0; i < TRACER_MAX_CUSTOM_FILES; i++) {
		struct probed_file *c = &tl->custom[i];

		if (c->fds[0] >= 0 && c->dev == dev && c->inode == inode)
			return 0;
		if (c->fds[0] < 0 && !f)
			f = c;
	}
	if (!f)
		return -E2BIG;
	probed_already(t, f, dev, inode, 0);
	for (size_t i = 0; i < nr; i++) {
		if (HT_CUSTOM_COOKIE_AT_ENTRY(cookies[i]))
			continue;
		returns[nr_returns] = offsets[i];
		return_cookies[nr_returns++] = cookies[i];
	}
	/* Returns first, as for the malloc family. */
	if (nr_returns) {
		fd = attach(pid, t->skel->progs.custom_return, true, path, returns,
			    return_cookies, nr_returns);
		if (fd < 0)
			return fd;
		f->fds[1] = fd;
	}
	fd = attach(pid, t->skel->progs.custom_entry, false, path, offsets, cookies, nr);
	if (fd < 0) {
		unprobe(t, f);
		return fd;
	}
	f->fds[0] = fd;
	return 0;
}

void tracer__detach(struct tracer *t, pid_t pid)
{
	struct target_links *tl;

	HASH_FIND_INT(t->targets, &pid, tl);
	if (!tl)
		return;
	unprobe(t, &tl->allocator);
	unprobe(t, &tl->loader);
	for (int i = 0; i < TRACER_MAX_CUSTOM_FILES; i++)
		unprobe(t, &tl->custom[i]);
	HASH_DEL(t->targets, tl);
	free(tl);
}
