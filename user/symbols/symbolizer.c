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
#include "strpool.h"
#include "symbolizer.h"

/*
 * A stack seen before, by its stack id (one id, one stack, for the life of the program)
 * or, for a stack sent without one, by its whole self: two stacks never share an entry.
 */
struct cached_stack {
	struct {
		__u64 id;
		__u64 func;
	} key;
	__u64 *frames_key; /* func, then the frames; when there is no id */
	size_t key_len;
	struct resolved_call call;
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
	struct cached_stack *by_id, *by_frames;
	struct cached_stack *cut_by_id; /* cut at an unmapped frame: until the maps change */
	struct strpool names; /* of the libraries and functions calls are charged to */
	struct stack_records *records;
};

static void forget(struct cached_stack **table)
{
	struct cached_stack *c, *tmp;

	HASH_ITER(hh, *table, c, tmp) {
		HASH_DEL(*table, c);
		free(c->frames_key);
		free(c);
	}
}

static void forget_stacks(struct symbolizer *s)
{
	forget(&s->by_id);
	forget(&s->by_frames);
	forget(&s->cut_by_id);
}

static bool same_mapping(const struct mapping *a, const struct mapping *b)
{
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->dev == b->dev && a->inode == b->inode;
}

/*
 * Does fresh put other code where old had code? Mappings only added (the loader's usual
 * change) leave every cached answer true, but for a stack cut at an unmapped frame, which
 * a new mapping may name.
 */
static bool code_replaced(const struct procmaps *old, const struct procmaps *fresh)
{
	for (size_t i = 0; i < old->nr; i++) {
		const struct mapping *m = &old->maps[i];
		const struct mapping *now = procmaps__find(fresh, m->start);

		if (!m->executable)
			continue;
		if (now ? !same_mapping(now, m) : procmaps__overlaps(fresh, m))
			return true;
	}
	return false;
}

static struct object_file *object_of(struct symbolizer *s, const struct mapping *m);

/* Take fresh (the process's mappings, just read) in place of the maps known so far. */
static int adopt_maps(struct symbolizer *s, struct procmaps *fresh)
{
	bool replaced;

	s->maps_stale = false;
	if (fresh->nr == 0)
		return -ESRCH; /* an exited process's maps read empty: keep what we knew */
	replaced = code_replaced(&s->maps, fresh);
	/*
	 * Events are read after they happen: the calls queued before a dlclose() may still
	 * run through the code it unmapped.
	 */
	procmaps__keep_unmapped_code(fresh, &s->maps);
	procmaps__clear(&s->maps);
	s->maps = *fresh;
	*fresh = (struct procmaps){};
	if (replaced)
		forget_stacks(s);
	else
		forget(&s->cut_by_id);
	/* Open every code file now: events are read in batches, maybe after the exit. */
	for (size_t i = 0; i < s->maps.nr; i++) {
		if (s->maps.maps[i].executable && s->maps.maps[i].path[0] == '/')
			object_of(s, &s->maps.maps[i]);
	}
	return 0;
}

static int read_maps(struct symbolizer *s)
{
	struct procmaps fresh = {};
	int err = procmaps__read(s->pid, &fresh);

	s->maps_stale = false;
	if (!err)
		err = adopt_maps(s, &fresh);
	procmaps__clear(&fresh);
	return err;
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
	strpool__clear(&s->names);
	procmaps__clear(&s->maps);
	free(s);
}

void symbolizer__mappings_changed(struct symbolizer *s, struct procmaps *fresh)
{
	/* Read now, while the process is held at its loader event: it may exit soon. */
	if (fresh ? adopt_maps(s, fresh) : read_maps(s))
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

/* Resolve a stack. *cut: a frame lay in no mapping (a later mapping may name it). */
static int resolve_uncached(struct symbolizer *s, enum ht_func func, const __u64 *pcs,
			    __u32 nr, struct resolved_call *out, bool *cut)
{
	struct frame frames[HT_MAX_FRAMES];
	const struct mapping *naming = NULL;
	struct attribution a;
	char *offset_named = NULL;
	uint64_t end_dev = 0, end_inode = 0;
	__u32 valid = 1;

	*cut = false;
	frames[0] = (struct frame){ .object = s->alloc->path, .in_allocator = true };
	for (__u32 i = 1; i < nr; i++) {
		/* A return address may lie past the end of a call to a noreturn function. */
		const struct mapping *m = mapping_of(s, pcs[i] - 1);
		struct object_file *obj;

		if (!m) {
			*cut = true;
			break; /* not code: everything beyond is unreliable */
		}
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
		end_dev = m->dev;
		end_inode = m->inode;
	}

	if (nr >= 2 && has_aliases(s->alloc, func))
		func = told_apart(s, func, pcs[1]);
	*out = (struct resolved_call){ .func = func, .end_dev = end_dev, .end_inode = end_inode };
	out->internal = valid >= 2 && is_allocator_housekeeping(s, func, &frames[1], pcs[1]);
	a = attribute(frames, valid, s->rule);
	out->complete = a.complete;
	if (a.frame == 0) {
		out->library = strpool__intern(&s->names, s->alloc->path);
		out->function = strpool__intern(&s->names, ht_func_names[func]);
	} else {
		const struct frame *f = &frames[a.frame];
		const char *called = entry_point_called(s, pcs, valid, a.frame);

		naming = mapping_of(s, pcs[a.frame] - 1);
		if (!called && !f->symbol &&
		    !(offset_named = offset_name(f->object, pcs[a.frame] - naming->start +
								naming->offset)))
			return -ENOMEM;
		out->library = strpool__intern(&s->names, f->object);
		out->function = strpool__intern(&s->names, called	  ? called :
							   f->symbol ? f->symbol :
								       offset_named);
		free(offset_named);
	}
	if (!out->library || !out->function)
		return -ENOMEM;
	if (s->records && !out->internal &&
	    !(out->record = record_stack(s, pcs, valid, frames, a.complete)))
		return -ENOMEM;
	return 0;
}

/* Keep call as the answer for this stack: by its id, or by its frames without one. */
static int remember(struct symbolizer *s, enum ht_func func, __u64 stack_id, const __u64 *frames,
		    __u32 nr_frames, const struct resolved_call *call, bool cut)
{
	struct cached_stack *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->call = *call;
	c->key.func = func;
	if (stack_id) {
		c->key.id = stack_id;
		if (cut)
			HASH_ADD(hh, s->cut_by_id, key, sizeof(c->key), c);
		else
			HASH_ADD(hh, s->by_id, key, sizeof(c->key), c);
		return 0;
	}
	if (cut) {
		free(c);
		return 0; /* rare: resolved again next time */
	}
	c->key_len = (nr_frames + 1) * sizeof(__u64);
	c->frames_key = malloc(c->key_len);
	if (!c->frames_key) {
		free(c);
		return -ENOMEM;
	}
	c->frames_key[0] = func;
	memcpy(c->frames_key + 1, frames, nr_frames * sizeof(__u64));
	HASH_ADD_KEYPTR(hh, s->by_frames, c->frames_key, c->key_len, c);
	return 0;
}

bool symbolizer__cached(struct symbolizer *s, enum ht_func func, __u64 stack_id,
			struct resolved_call *out)
{
	struct cached_stack probe = { .key = { .id = stack_id, .func = func } }, *c;

	HASH_FIND(hh, s->by_id, &probe.key, sizeof(probe.key), c);
	if (!c)
		HASH_FIND(hh, s->cut_by_id, &probe.key, sizeof(probe.key), c);
	if (c)
		*out = c->call;
	return c != NULL;
}

int symbolizer__resolve(struct symbolizer *s, enum ht_func func, __u64 stack_id,
			const __u64 *frames, __u32 nr_frames, struct resolved_call *out)
{
	struct cached_stack *c = NULL;
	bool cut;
	int err;

	if (nr_frames > HT_MAX_FRAMES || func >= HT_NR_FUNCS)
		return -EINVAL;
	if (!stack_id) {
		__u64 key[HT_MAX_FRAMES + 1];

		key[0] = func;
		memcpy(key + 1, frames, nr_frames * sizeof(__u64));
		HASH_FIND(hh, s->by_frames, key, (nr_frames + 1) * sizeof(__u64), c);
	}
	if (c) {
		*out = c->call;
		return 0;
	}

	/* A new stack may run through an object mapped since the last look. */
	if (s->maps_stale)
		read_maps(s);
	err = resolve_uncached(s, func, frames, nr_frames, out, &cut);
	return err ? err : remember(s, func, stack_id, frames, nr_frames, out, cut);
}
