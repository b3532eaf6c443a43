// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "answer_table.h"
#include "debug_file.h"
#include "log.h"
#include "procfs.h"
#include "symcache.h"

struct cached_file {
	uint64_t key[2]; /* dev, inode */
	struct object_file obj;
	UT_hash_handle hh;
};

struct symcache {
	struct cached_file *files;
	pthread_rwlock_t files_lock; /* the file table: read by lookups, written by add() */
	pthread_mutex_t lock;	     /* recursive: loading, the budget, cached call answers */
	struct budget budget;
	struct answer_table *answers; /* object_file__keep_answer's, read without the lock */
};

void symcache__lock(struct symcache *cache)
{
	pthread_mutex_lock(&cache->lock);
}

void symcache__unlock(struct symcache *cache)
{
	pthread_mutex_unlock(&cache->lock);
}

/* What a cached answer or name costs besides itself: malloc's header, uthash's buckets. */
#define ENTRY_OVERHEAD 32

struct call_answer {
	uint64_t ret_offset;
	const char *callee; /* owned by the file's callsite */
	bool direct;
	uint64_t target;
	UT_hash_handle hh;
};

struct defined_name {
	uint64_t offset; /* 0: not defined */
	UT_hash_handle hh;
	char name[]; /* the key */
};

static const char *display_name(const char *open_path)
{
	return open_path + debug_file__root_len(open_path);
}

const char *object_file__name(const struct object_file *obj)
{
	return display_name(obj->open_path);
}

/* Charge the file for what it keeps now: its loaders kept within the room they were given. */
static void recharge(struct object_file *obj)
{
	uint64_t now = obj->cache_bytes;

	if (obj->syms)
		now += elfsyms__bytes(obj->syms);
	if (obj->calls)
		now += callsite__bytes(obj->calls);
	if (obj->starts)
		now += funcstarts__bytes(obj->starts);
	if (obj->dwarf)
		now += inlines__bytes(obj->dwarf);
	if (now >= obj->bytes) {
		obj->cache->budget.used += now - obj->bytes;
		obj->bytes = now;
	} else {
		budget__give_back(&obj->cache->budget, &obj->bytes, obj->bytes - now);
	}
}

const char *left_out_name(unsigned int bit)
{
	return bit == LEFT_OUT_SYMBOLS ? "symbols" :
	       bit == LEFT_OUT_DEBUG   ? "debug symbols" :
	       bit == LEFT_OUT_CALLS   ? "call sites" :
	       bit == LEFT_OUT_STARTS  ? "function starts" :
	       bit == LEFT_OUT_DWARF   ? "DWARF" :
					 "cached names";
}

/* Something did not fit in room: say so, once per file, whatever more is left out later. */
static void left_out(struct object_file *obj, unsigned int what)
{
	struct budget *b = &obj->cache->budget;
	char size[16];

	obj->left_out |= what;
	if (obj->over_budget)
		return;
	obj->over_budget = budget__why(b, obj->bytes);
	b->files_refused++;
	log_info("warning: %s: %s over the symbol %s (%s): names there may be missing",
		 object_file__name(obj), left_out_name(what), budget_verdict_name(obj->over_budget),
		 budget_size_text(obj->over_budget == BUDGET_TOTAL ? b->limits.total :
								      b->limits.per_file,
				  size, sizeof(size)));
}

/*
 * A stripped library's static functions (glibc's start_thread, __libc_start_call_main)
 * are named in its separate debug file, when a -dbg package has it, or else in its
 * MiniDebugInfo (.gnu_debugdata).
 */
static void load_debug_symbols(struct object_file *obj)
{
	uint64_t room;
	int err;

	obj->debug_path = debug_file__find(obj->syms, obj->open_path);
	/* Its table replaces the stripped file's, whose bytes it may use too. */
	room = budget__room(&obj->cache->budget, obj->bytes) + elfsyms__table_bytes(obj->syms);
	if (obj->debug_path) {
		err = elfsyms__load_debug_within(obj->syms, obj->debug_path, room);
		if (!err)
			log_debug("symbols of %s from %s", obj->open_path, obj->debug_path);
	} else {
		room = budget__room(&obj->cache->budget, obj->bytes);
		err = elfsyms__load_debugdata_within(obj->syms, obj->read_path, room);
		if (!err)
			log_debug("symbols of %s from its .gnu_debugdata", obj->open_path);
	}
	if (err == -EFBIG)
		left_out(obj, LEFT_OUT_DEBUG);
	recharge(obj);
}

struct symcache *symcache__new(void)
{
	struct symcache *cache = calloc(1, sizeof(struct symcache));
	pthread_mutexattr_t attr;

	if (!cache)
		return NULL;
	if (!(cache->answers = answer_table__new())) {
		free(cache);
		return NULL;
	}
	cache->budget.limits = (struct budget_limits){ SYMBOL_BUDGET_FILE, SYMBOL_BUDGET_TOTAL };
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&cache->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	pthread_rwlock_init(&cache->files_lock, NULL);
	return cache;
}

void symcache__set_limits(struct symcache *cache, const struct budget_limits *limits)
{
	symcache__lock(cache);
	cache->budget.limits = *limits;
	symcache__unlock(cache);
}

const struct budget *symcache__budget(const struct symcache *cache)
{
	return &cache->budget;
}

const struct object_file *symcache__next(const struct symcache *cache,
					 const struct object_file *prev)
{
	const struct cached_file *f;

	pthread_rwlock_rdlock((pthread_rwlock_t *)&cache->files_lock);
	if (!prev) {
		f = cache->files;
	} else {
		f = (const struct cached_file *)((const char *)prev -
						 offsetof(struct cached_file, obj));
		f = f->hh.next;
	}
	pthread_rwlock_unlock((pthread_rwlock_t *)&cache->files_lock);
	return f ? &f->obj : NULL;
}

static struct cached_file *find(struct symcache *cache, uint64_t dev, uint64_t inode)
{
	uint64_t key[2] = { dev, inode };
	struct cached_file *f;

	pthread_rwlock_rdlock(&cache->files_lock);
	HASH_FIND(hh, cache->files, key, sizeof(key), f);
	pthread_rwlock_unlock(&cache->files_lock);
	return f;
}

/* A new file, named open_path, read from exact_path (the same, or the very mapped file). */
static struct object_file *add(struct symcache *cache, uint64_t dev, uint64_t inode,
			       const char *open_path, const char *exact_path)
{
	uint64_t key[2] = { dev, inode }, room = budget__room(&cache->budget, 0);
	struct cached_file *f = calloc(1, sizeof(*f));

	if (!f || !(f->obj.open_path = strdup(open_path))) {
		free(f);
		return NULL;
	}
	memcpy(f->key, key, sizeof(key));
	f->obj.cache = cache;
	f->obj.dev = dev;
	f->obj.inode = inode;
	f->obj.fd = open(exact_path, O_RDONLY | O_CLOEXEC);
	if (f->obj.fd >= 0)
		snprintf(f->obj.read_path, sizeof(f->obj.read_path), "/proc/self/fd/%d", f->obj.fd);
	else
		snprintf(f->obj.read_path, sizeof(f->obj.read_path), "/nonexistent");
	f->obj.syms = elfsyms__load_within(f->obj.read_path, room);
	if (f->obj.syms ? elfsyms__over_budget(f->obj.syms) : errno == EFBIG)
		left_out(&f->obj, LEFT_OUT_SYMBOLS);
	else if (!f->obj.syms)
		log_debug("no symbols for %s: %m", open_path);
	recharge(&f->obj);
	if (f->obj.syms && !elfsyms__full(f->obj.syms))
		load_debug_symbols(&f->obj);
	/* Once per file: files are read once, whatever number of processes map them. */
	if (f->obj.syms && elfsyms__malformed(f->obj.syms))
		log_info("warning: %s: malformed symbol tables (problems: %zu): names there may be "
			 "missing", display_name(open_path), elfsyms__malformed(f->obj.syms));
	pthread_rwlock_wrlock(&cache->files_lock);
	HASH_ADD(hh, cache->files, key, sizeof(f->key), f);
	pthread_rwlock_unlock(&cache->files_lock);
	return &f->obj;
}

struct object_file *symcache__get(struct symcache *cache, uint64_t dev, uint64_t inode,
				  const char *open_path)
{
	struct cached_file *f = find(cache, dev, inode);
	struct object_file *obj;

	if (f)
		return &f->obj;
	/* Read once: another thread may have read it while this one waited. */
	symcache__lock(cache);
	f = find(cache, dev, inode);
	obj = f ? &f->obj : add(cache, dev, inode, open_path, open_path);
	symcache__unlock(cache);
	return obj;
}

static struct object_file *add_mapped(struct symcache *cache, pid_t pid,
				      const struct mapping *m);

struct object_file *symcache__get_mapped(struct symcache *cache, pid_t pid,
					 const struct mapping *m)
{
	struct cached_file *f = find(cache, m->dev, m->inode);
	struct object_file *obj;

	if (f)
		return &f->obj;
	symcache__lock(cache);
	f = find(cache, m->dev, m->inode);
	obj = f ? &f->obj : add_mapped(cache, pid, m);
	symcache__unlock(cache);
	return obj;
}

static struct object_file *add_mapped(struct symcache *cache, pid_t pid,
				      const struct mapping *m)
{
	char open_path[4096], exact_path[4096];
	int err;

	/* Named by its path in the target's namespace, where its debug file is looked for. */
	procfs_root_path(pid, m->path, open_path, sizeof(open_path));
	err = procmaps__file_path(pid, m, exact_path, sizeof(exact_path));
	if (err)
		log_debug("%s: not the file pid %d maps: %s", m->path, pid, strerror(-err));
	else if (strncmp(exact_path, "/proc/", 6))
		/* The process is gone: its debug files are looked for from heaptap's root. */
		snprintf(open_path, sizeof(open_path), "%s", exact_path);
	return add(cache, m->dev, m->inode, open_path, exact_path);
}

const struct callsite *object_file__calls(struct object_file *obj)
{
	uint64_t room;

	symcache__lock(obj->cache);
	if (!obj->calls_tried) {
		obj->calls_tried = true;
		room = budget__room(&obj->cache->budget, obj->bytes);
		obj->calls = callsite__load_within(obj->read_path, room);
		if (!obj->calls && errno == EFBIG)
			left_out(obj, LEFT_OUT_CALLS);
		recharge(obj);
	}
	symcache__unlock(obj->cache);
	return obj->calls;
}

/* Room for one more cached entry of size bytes; else, once, the file is told why not. */
bool object_file__cache_room(struct object_file *obj, size_t size)
{
	uint64_t room;
	bool fits;

	symcache__lock(obj->cache);
	room = budget__room(&obj->cache->budget, obj->bytes);
	fits = size + ENTRY_OVERHEAD <= room;
	if (!fits) {
		left_out(obj, LEFT_OUT_CACHE);
	} else {
		obj->cache_bytes += size + ENTRY_OVERHEAD;
		recharge(obj);
	}
	symcache__unlock(obj->cache);
	return fits;
}

/* An entry cache_room() made room for could not be made after all. */
static void cache_unroom(struct object_file *obj, size_t size)
{
	symcache__lock(obj->cache);
	obj->cache_bytes -= size + ENTRY_OVERHEAD;
	recharge(obj);
	symcache__unlock(obj->cache);
}

const struct funcstarts *object_file__starts(struct object_file *obj)
{
	symcache__lock(obj->cache);
	if (!obj->starts_tried) {
		obj->starts_tried = true;
		obj->starts = funcstarts__load_within(obj->read_path,
						      budget__room(&obj->cache->budget, obj->bytes));
		if (!obj->starts && errno == EFBIG)
			left_out(obj, LEFT_OUT_STARTS);
		recharge(obj);
	}
	symcache__unlock(obj->cache);
	return obj->starts;
}

struct inlines *object_file__dwarf(struct object_file *obj)
{
	uint64_t room;
	int err;

	symcache__lock(obj->cache);
	if (!obj->dwarf_tried) {
		obj->dwarf_tried = true;
		room = budget__room(&obj->cache->budget, obj->bytes);
		/* Its own DWARF (a program built with -g), else its debug file's. */
		obj->dwarf = inlines__open_within(obj->read_path, room);
		err = obj->dwarf ? 0 : errno;
		if (err == ENOENT && !obj->debug_path && obj->syms)
			obj->debug_path = debug_file__find(obj->syms, obj->open_path);
		if (err == ENOENT && obj->debug_path) {
			obj->dwarf = inlines__open_within(obj->debug_path, room);
			err = obj->dwarf ? 0 : errno;
		}
		if (err == EFBIG)
			left_out(obj, LEFT_OUT_DWARF);
		recharge(obj);
	}
	symcache__unlock(obj->cache);
	return obj->dwarf;
}

static struct call_answer *answer_for(struct object_file *obj, uint64_t ret_offset)
{
	const struct callsite *cs = object_file__calls(obj);
	struct call_answer *a;

	HASH_FIND(hh, obj->answers, &ret_offset, sizeof(ret_offset), a);
	if (a || !cs || !object_file__cache_room(obj, sizeof(*a)))
		return a;
	a = calloc(1, sizeof(*a));
	if (!a) {
		cache_unroom(obj, sizeof(*a));
		return NULL;
	}
	a->ret_offset = ret_offset;
	a->callee = callsite__callee(cs, ret_offset);
	a->direct = callsite__direct_target(cs, ret_offset, &a->target);
	HASH_ADD(hh, obj->answers, ret_offset, sizeof(a->ret_offset), a);
	return a;
}

/* Without room to cache them, answers are read from the file each time. */
const char *object_file__callee(struct object_file *obj, uint64_t ret_offset)
{
	struct call_answer *a;
	const char *callee;

	symcache__lock(obj->cache);
	a = answer_for(obj, ret_offset);
	if (!a && obj->calls)
		callee = callsite__callee(obj->calls, ret_offset);
	else
		callee = a ? a->callee : NULL;
	symcache__unlock(obj->cache);
	return callee;
}

bool object_file__direct_target(struct object_file *obj, uint64_t ret_offset, uint64_t *target)
{
	struct call_answer *a;
	bool direct = false;

	symcache__lock(obj->cache);
	a = answer_for(obj, ret_offset);
	if (!a && obj->calls) {
		direct = callsite__direct_target(obj->calls, ret_offset, target);
	} else if (a && a->direct) {
		*target = a->target;
		direct = true;
	}
	symcache__unlock(obj->cache);
	return direct;
}

static uint64_t offset_of(struct object_file *obj, const char *name);

uint64_t object_file__offset_of(struct object_file *obj, const char *name)
{
	uint64_t offset;

	symcache__lock(obj->cache);
	offset = offset_of(obj, name);
	symcache__unlock(obj->cache);
	return offset;
}

static uint64_t offset_of(struct object_file *obj, const char *name)
{
	struct defined_name *d;
	size_t len = strlen(name);

	if (!obj->syms)
		return 0;
	HASH_FIND(hh, obj->defined, name, len, d);
	if (d)
		return d->offset;
	if (!object_file__cache_room(obj, sizeof(*d) + len + 1))
		return elfsyms__offset_of(obj->syms, name);
	d = malloc(sizeof(*d) + len + 1);
	if (!d) {
		cache_unroom(obj, sizeof(*d) + len + 1);
		return elfsyms__offset_of(obj->syms, name);
	}
	memcpy(d->name, name, len + 1);
	d->offset = elfsyms__offset_of(obj->syms, name);
	HASH_ADD(hh, obj->defined, name, len, d);
	return d->offset;
}

bool object_file__defines(struct object_file *obj, const char *name)
{
	return object_file__offset_of(obj, name) != 0;
}

const void *object_file__answer(const struct object_file *obj, uint64_t key)
{
	return answer_table__find(obj->cache->answers, obj, key);
}

const void *object_file__keep_answer(struct object_file *obj, uint64_t key, const void *answer,
				     size_t size, size_t strings)
{
	size_t charged = answer_table__entry_bytes() + size + strings;
	const void *kept;
	int first;

	if (!object_file__cache_room(obj, charged))
		return NULL;
	kept = answer_table__add(obj->cache->answers, obj, key, answer, size, &first);
	if (!kept || first)
		cache_unroom(obj, charged); /* none kept, or another thread's kept before */
	return kept;
}

static void forget_answers(struct object_file *obj)
{
	struct call_answer *a, *atmp;
	struct defined_name *d, *dtmp;

	HASH_ITER(hh, obj->answers, a, atmp) {
		HASH_DEL(obj->answers, a);
		free(a);
	}
	HASH_ITER(hh, obj->defined, d, dtmp) {
		HASH_DEL(obj->defined, d);
		free(d);
	}
}

void symcache__free(struct symcache *cache)
{
	struct cached_file *f, *tmp;

	if (!cache)
		return;
	answer_table__free(cache->answers);
	HASH_ITER(hh, cache->files, f, tmp) {
		HASH_DEL(cache->files, f);
		strpool__clear(&f->obj.names);
		inlines__free(f->obj.dwarf);
		funcstarts__free(f->obj.starts);
		free(f->obj.debug_path);
		elfsyms__free(f->obj.syms);
		forget_answers(&f->obj);
		callsite__free(f->obj.calls);
		if (f->obj.fd >= 0)
			close(f->obj.fd);
		free(f->obj.open_path);
		free(f);
	}
	pthread_rwlock_destroy(&cache->files_lock);
	pthread_mutex_destroy(&cache->lock);
	free(cache);
}
