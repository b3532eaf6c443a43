// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include "allocator.h"
#include "probe_site.h"

static const char *basename_of(const char *path)
{
	const char *base = strrchr(path, '/');

	return base ? base + 1 : path;
}

static bool is_glibc(const char *path)
{
	const char *base = basename_of(path);

	return !strncmp(base, "libc.so", 7) || !strncmp(base, "libc-2.", 7);
}

/* Allocators that replace libc's malloc when preloaded or linked. */
static bool is_known_allocator(const char *path)
{
	static const char *const prefixes[] = {
		"libjemalloc", "libtcmalloc", "libtbbmalloc", "libmimalloc", "libhoard",
	};
	const char *base = basename_of(path);

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return true;
	}
	return false;
}

void allocator__from_object(const char *path, const struct object_file *obj,
			    struct allocator *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->path, sizeof(out->path), "%s", path);
	snprintf(out->open_path, sizeof(out->open_path), "%s", obj->read_path);
	out->dev = obj->dev;
	out->inode = obj->inode;
	/* A static program linked with glibc carries glibc's malloc, and its chunk headers. */
	out->glibc = is_glibc(path) || elfsyms__offset_of(obj->syms, "_int_malloc");
	out->classes = size_classes__of(path);
	out->pages_readable = size_classes__pages_readable(path);
	for (int f = 0; f < HT_NR_FUNCS; f++) {
		out->offsets[f] = elfsyms__offset_of(obj->syms, ht_func_names[f]);
		out->sites[f] = probe_site__place(obj, out->offsets[f]);
	}
}

int allocator__find(pid_t pid, const struct procmaps *maps, struct symcache *cache,
		    struct allocator *out)
{
	char exe[4096], link[64];
	ssize_t exe_len;
	const struct mapping *libc = NULL, *other = NULL;
	struct object_file *libc_obj = NULL, *other_obj = NULL;

	/*
	 * A known allocator library, or the program itself (a static build), that defines
	 * malloc wins over libc: it is there to replace libc's.
	 */
	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	exe_len = readlink(link, exe, sizeof(exe) - 1);
	exe[exe_len > 0 ? exe_len : 0] = '\0';
	for (size_t i = 0; i < maps->nr; i++) {
		const struct mapping *m = &maps->maps[i];
		struct object_file *obj;

		if (!m->executable || m->path[0] != '/')
			continue;
		if ((libc && m->inode == libc->inode && m->dev == libc->dev) ||
		    (other && m->inode == other->inode && m->dev == other->dev))
			continue;
		obj = symcache__get_mapped(cache, pid, m);
		if (!obj)
			return -ENOMEM;
		if (!obj->syms || !elfsyms__offset_of(obj->syms, "malloc"))
			continue;
		if (is_glibc(m->path)) {
			libc = m;
			libc_obj = obj;
		} else if (!other && (is_known_allocator(m->path) || !strcmp(m->path, exe))) {
			other = m;
			other_obj = obj;
		}
	}
	if (!other && !libc)
		return -ENOENT;
	if (other)
		allocator__from_object(other->path, other_obj, out);
	else
		allocator__from_object(libc->path, libc_obj, out);
	return 0;
}

bool allocator__is_alias(const struct allocator *a, enum ht_func func)
{
	for (int f = 0; f < (int)func; f++) {
		if (a->offsets[f] && a->offsets[f] == a->offsets[func])
			return true;
	}
	return false;
}

#define PAGE_SIZE 4096ull

/* The size and alignment func asks its allocator for. */
static bool block_usable(const struct allocator *a, enum ht_func func, uint64_t requested,
			 uint64_t align, uint64_t *usable)
{
	switch (func) {
	case HT_MEMALIGN:
	case HT_ALIGNED_ALLOC:
	case HT_POSIX_MEMALIGN:
		break;
	case HT_VALLOC:
		align = PAGE_SIZE;
		break;
	case HT_PVALLOC:
		align = PAGE_SIZE;
		requested = (requested + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
		break;
	default:
		align = 0;
	}
	return size_classes__usable(a->classes, requested, align, usable);
}

uint64_t allocator__usable(const struct allocator *a, enum ht_func func, uint64_t requested,
			   uint64_t align)
{
	uint64_t usable;

	block_usable(a, func, requested, align, &usable);
	return usable;
}

bool allocator__usable_known(const struct allocator *a, enum ht_func func, uint64_t requested,
			     uint64_t align)
{
	uint64_t usable;

	return block_usable(a, func, requested, align, &usable);
}

uint64_t allocator__realloc_usable(const struct allocator *a, uint64_t requested,
				   uint64_t old_usable, bool in_place)
{
	uint64_t usable;

	size_classes__realloc_usable(a->classes, requested, old_usable, in_place, &usable);
	return usable;
}
