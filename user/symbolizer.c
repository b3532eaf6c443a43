// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <uthash.h>
#include "log.h"
#include "procmaps.h"
#include "symbolizer.h"

/* A stack seen before: the key is the whole stack, so two stacks never share an entry. */
struct cached_stack {
	__u64 *key; /* func, then the frames */
	size_t key_len;
	struct resolved_call call;
	char *library, *function;
	UT_hash_handle hh;
};

struct symbolizer {
	pid_t pid;
	struct symcache *cache;
	const struct allocator *alloc;
	enum attribution_rule rule;
	dev_t exe_dev;
	ino_t exe_inode;
	struct procmaps maps;
	bool maps_stale;
	struct cached_stack *stacks;
	struct stack_records *records;
};

static void forget_stacks(struct symbolizer *s)
{
	struct cached_stack *c, *tmp;

	HASH_ITER(hh, s->stacks, c, tmp) {
		HASH_DEL(s->stacks, c);
		free(c->key);
		free(c->library);
		free(c->function);
		free(c);
	}
}

static struct object_file *object_of(struct symbolizer *s, const struct mapping *m);

static int read_maps(struct symbolizer *s)
{
	struct procmaps fresh = {};
	int err = procmaps__read(s->pid, &fresh);

	s->maps_stale = false;
	if (!err && fresh.nr == 0)
		err = -ESRCH; /* an exited process's maps read empty */
	if (err)
		return err; /* the process is gone: keep what we knew */
	/*
	 * Events are read after they happen: the calls queued before a dlclose() may still
	 * run through the code it unmapped.
	 */
	procmaps__keep_unmapped_code(&fresh, &s->maps);
	procmaps__clear(&s->maps);
	s->maps = fresh;
	forget_stacks(s); /* addresses may mean other code now */
	/* Open every code file now: events are read in batches, maybe after the exit. */
	for (size_t i = 0; i < s->maps.nr; i++) {
		if (s->maps.maps[i].executable && s->maps.maps[i].path[0] == '/')
			object_of(s, &s->maps.maps[i]);
	}
	return 0;
}

struct symbolizer *symbolizer__new(pid_t pid, struct symcache *cache,
				   const struct allocator *alloc, enum attribution_rule rule,
				   struct stack_records *records)
{
	struct symbolizer *s = calloc(1, sizeof(*s));
	char exe[64];
	struct stat st;
	int err;

	if (!s)
		return NULL;
	s->pid = pid;
	s->cache = cache;
	s->alloc = alloc;
	s->rule = rule;
	s->records = records;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	if (stat(exe, &st) == 0) {
		s->exe_dev = st.st_dev;
		s->exe_inode = st.st_ino;
	}
	err = read_maps(s);
	if (err) {
		symbolizer__free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	forget_stacks(s);
	procmaps__clear(&s->maps);
	free(s);
}

void symbolizer__mappings_changed(struct symbolizer *s)
{
	/* Read now, while the process is held at its loader event: it may exit soon. */
	if (read_maps(s))
		s->maps_stale = true;
}

/* The executable mapping holding a frame's pc. */
static const struct mapping *mapping_of(struct symbolizer *s, __u64 pc)
{
	const struct mapping *m = procmaps__find(&s->maps, pc);

	return m && m->executable ? m : NULL;
}

static struct object_file *object_of(struct symbolizer *s, const struct mapping *m)
{
	return symcache__get_mapped(s->cache, s->pid, m);
}

static bool same_file(const struct mapping *m, uint64_t dev, uint64_t inode)
{
	return m->dev == dev && m->inode == inode;
}

/* glibc gives several entry points one address; the caller's call instruction tells which. */
static enum ht_func told_apart(struct symbolizer *s, enum ht_func func, __u64 ret_addr)
{
	const struct mapping *m = mapping_of(s, ret_addr - 1);
	struct object_file *obj;
	const char *callee;

	if (!m || !(obj = object_of(s, m)))
		return func;
	callee = object_file__callee(obj, ret_addr - m->start + m->offset);
	if (!callee)
		return func;
	for (int f = 0; f < HT_NR_FUNCS; f++) {
		if (s->alloc->offsets[f] == s->alloc->offsets[func] &&
		    !strcmp(callee, ht_func_names[f]))
			return f;
	}
	return func;
}

/*
 * glibc's tcache_thread_shutdown() frees, at thread exit, blocks the program already freed
 * (they sat in the thread's cache) and the cache itself, which no public call allocated.
 * Its name tells, where symbols are known (a static program, libc6-dbg). Otherwise, in a
 * shared libc, its calls are the only direct calls into __libc_free: every other part of
 * libc frees through the PLT. (In a static program every call is direct.)
 */
static bool is_allocator_housekeeping(struct symbolizer *s, enum ht_func func,
				      const struct frame *caller, __u64 ret_addr)
{
	const struct mapping *m = mapping_of(s, ret_addr - 1);
	struct object_file *obj;
	uint64_t target;

	if (func != HT_FREE || !s->alloc->glibc)
		return false;
	if (caller->symbol)
		return !strcmp(caller->symbol, "tcache_thread_shutdown") ||
		       !strcmp(caller->symbol, "__malloc_arena_thread_freeres");
	if (!m || !same_file(m, s->alloc->dev, s->alloc->inode) ||
	    same_file(m, s->exe_dev, s->exe_inode) || !(obj = object_of(s, m)))
		return false;
	return object_file__direct_target(obj, ret_addr - m->start + m->offset, &target) &&
	       target == s->alloc->offsets[HT_FREE];
}

static bool has_aliases(const struct allocator *a, enum ht_func func)
{
	for (int f = 0; f < HT_NR_FUNCS; f++) {
		if (f != (int)func && a->offsets[f] && a->offsets[f] == a->offsets[func])
			return true;
	}
	return false;
}

/*
 * The function a return address returns into: the one holding its call instruction, just
 * before it. A signal handler's return address is the trampoline's first byte, exact.
 */
static const char *return_symbol(const struct elfsyms *syms, uint64_t ret_offset)
{
	const char *name = elfsyms__lookup(syms, ret_offset - 1);

	return name ? name : elfsyms__lookup(syms, ret_offset);
}

/*
 * Under the entry rule the group is the library function the program called, and the
 * program's call instruction names it: also when that function left the stack by a tail
 * call (MPI_Finalize jumps to ompi_mpi_finalize) or shares its address with another name
 * (MPI_Init and PMPI_Init). NULL when the call site does not tell.
 */
static const char *entry_point_called(struct symbolizer *s, const __u64 *pcs, __u32 nr,
				      size_t naming)
{
	const struct mapping *caller, *callee;
	struct object_file *caller_obj, *callee_obj;
	const char *name;

	if (s->rule != ATTRIBUTE_ENTRY || naming == 0 || naming + 1 >= nr)
		return NULL;
	caller = mapping_of(s, pcs[naming + 1] - 1);
	callee = mapping_of(s, pcs[naming] - 1);
	if (!caller || !callee || !same_file(caller, s->exe_dev, s->exe_inode) ||
	    !(caller_obj = object_of(s, caller)) || !(callee_obj = object_of(s, callee)))
		return NULL;
	name = object_file__callee(caller_obj, pcs[naming + 1] - caller->start + caller->offset);
	/* The name must be the naming library's own, not one it merely imports. */
	return name && object_file__defines(callee_obj, name) ? name : NULL;
}

/* "libfoo.so+0x1a2b": an address no symbol covers, named by its file and offset. */
static char *offset_name(const char *object, uint64_t offset)
{
	const char *base = strrchr(object, '/');
	char *name;

	if (asprintf(&name, "%s+0x%llx", base ? base + 1 : object, (unsigned long long)offset) < 0)
		return NULL;
	return name;
}

/* Keep the stack's frames, named, for --stacks. */
static struct stack_record *record_stack(struct symbolizer *s, const __u64 *pcs, __u32 nr,
					 const struct frame *frames, bool complete)
{
	struct stack_frame described[HT_MAX_FRAMES];
	char *names[HT_MAX_FRAMES] = {};
	struct stack_record *rec = NULL;
	__u32 i;

	for (i = 0; i < nr; i++) {
		/* Frame 0 is the probed entry point itself; the others are return addresses. */
		const struct mapping *m = mapping_of(s, i ? pcs[i] - 1 : pcs[i]);
		struct object_file *obj = m ? object_of(s, m) : NULL;
		const char *symbol = frames[i].symbol;

		if (!m)
			break;
		described[i].library = m->path;
		described[i].offset = pcs[i] - m->start + m->offset;
		if (i == 0 && obj && obj->syms)
			symbol = elfsyms__lookup(obj->syms, described[i].offset);
		if (!symbol && !(symbol = names[i] = offset_name(m->path, described[i].offset)))
			goto cleanup;
		described[i].function = symbol;
	}
	rec = stack_records__intern(s->records, described, i, complete);
cleanup:
	for (__u32 j = 0; j < nr; j++)
		free(names[j]);
	return rec;
}

static int resolve_uncached(struct symbolizer *s, enum ht_func func, const __u64 *pcs,
			    __u32 nr, struct cached_stack *out)
{
	struct frame frames[HT_MAX_FRAMES];
	const struct mapping *naming = NULL;
	struct attribution a;
	__u32 valid = 1;

	frames[0] = (struct frame){ .object = s->alloc->path, .in_allocator = true };
	for (__u32 i = 1; i < nr; i++) {
		/* A return address may lie past the end of a call to a noreturn function. */
		const struct mapping *m = mapping_of(s, pcs[i] - 1);
		struct object_file *obj;

		if (!m)
			break; /* not code: everything beyond is unreliable */
		obj = object_of(s, m);
		frames[i] = (struct frame){
			.object = m->path,
			.symbol = obj && obj->syms ? return_symbol(obj->syms, pcs[i] - m->start +
										 m->offset) :
						     NULL,
			.in_executable = same_file(m, s->exe_dev, s->exe_inode),
			.in_allocator = same_file(m, s->alloc->dev, s->alloc->inode),
		};
		valid = i + 1;
		out->call.end_dev = m->dev;
		out->call.end_inode = m->inode;
	}

	if (nr >= 2 && has_aliases(s->alloc, func))
		func = told_apart(s, func, pcs[1]);
	out->call.internal = valid >= 2 && is_allocator_housekeeping(s, func, &frames[1], pcs[1]);
	a = attribute(frames, valid, s->rule);

	out->call.func = func;
	out->call.complete = a.complete;
	if (a.frame == 0) {
		out->library = strdup(s->alloc->path);
		out->function = strdup(ht_func_names[func]);
	} else {
		const struct frame *f = &frames[a.frame];
		const char *called = entry_point_called(s, pcs, valid, a.frame);

		naming = mapping_of(s, pcs[a.frame] - 1);
		out->library = strdup(f->object);
		out->function = called	  ? strdup(called) :
				f->symbol ? strdup(f->symbol) :
					    offset_name(f->object, pcs[a.frame] - naming->start +
								     naming->offset);
	}
	if (!out->library || !out->function)
		return -ENOMEM;
	if (s->records && !out->call.internal &&
	    !(out->call.record = record_stack(s, pcs, valid, frames, a.complete)))
		return -ENOMEM;
	out->call.library = out->library;
	out->call.function = out->function;
	return 0;
}

int symbolizer__resolve(struct symbolizer *s, enum ht_func func, const __u64 *frames,
			__u32 nr_frames, struct resolved_call *out)
{
	size_t key_len = (nr_frames + 1) * sizeof(__u64);
	__u64 key[HT_MAX_FRAMES + 1];
	struct cached_stack *c;
	int err;

	if (nr_frames > HT_MAX_FRAMES || func >= HT_NR_FUNCS)
		return -EINVAL;
	key[0] = func;
	memcpy(key + 1, frames, nr_frames * sizeof(__u64));
	HASH_FIND(hh, s->stacks, key, key_len, c);
	if (c) {
		*out = c->call;
		return 0;
	}

	/* A new stack may run through an object mapped since the last look. */
	if (s->maps_stale)
		read_maps(s);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = resolve_uncached(s, func, frames, nr_frames, c);
	if (!err && !(c->key = malloc(key_len)))
		err = -ENOMEM;
	if (err) {
		free(c->library);
		free(c->function);
		free(c);
		return err;
	}
	memcpy(c->key, key, key_len);
	c->key_len = key_len;
	HASH_ADD_KEYPTR(hh, s->stacks, c->key, key_len, c);
	*out = c->call;
	return 0;
}
