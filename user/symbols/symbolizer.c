// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <uthash.h>
#include "log.h"
#include "named_stack.h"
#include "procmaps.h"
#include "strpool.h"
#include "symbolizer.h"
#include "word_hash.h"

/*
 * A stack seen before, by its stack id (one id, one stack, for the life of the program)
 * or, for a stack sent without one, by its whole self: two stacks never share an entry.
 */
struct cached_stack {
	struct { /* two words, as symbolizer__cached looks it up */
		__u64 id;
		__u64 func;
	} key;
	__u64 *frames_key; /* func, then the frames; when there is no id */
	size_t key_len;
	struct resolved_call call;
	UT_hash_handle hh;
};

/*
 * The answers found last, by stack id: nearly every event's stack was seen before, and a
 * process's events come from few stacks at a time. A slot is checked by its key, and the
 * memo emptied whenever answers are forgotten.
 */
#define MEMO_SLOTS 256

struct stack_memo {
	__u64 id, func;
	const struct cached_stack *c;
};

struct symbolizer {
	struct stack_memo memo[MEMO_SLOTS];
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
	struct node_stacks *node;    /* answers shared with the node's processes; NULL: none */
	struct named_stack *scratch; /* the stack being resolved: too large for the stack */
	struct frame_memo *frames;   /* its frames named last (NULL: none, only slower) */
	struct stack_frame *described; /* NAMED_STACK_MAX frames: the stack being recorded */
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

static void forget_memo(struct symbolizer *s)
{
	memset(s->memo, 0, sizeof(s->memo));
}

static void forget_stacks(struct symbolizer *s)
{
	forget_memo(s);
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
	/* Its slots point into the maps just freed. */
	if (s->frames)
		memset(s->frames, 0, sizeof(*s->frames));
	if (replaced) {
		forget_stacks(s);
	} else {
		forget_memo(s);
		forget(&s->cut_by_id);
	}
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
				   struct stack_records *records, struct node_stacks *node)
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
	s->node = node;
	s->scratch = malloc(sizeof(*s->scratch));
	s->frames = calloc(1, sizeof(*s->frames));
	s->described = malloc(NAMED_STACK_MAX * sizeof(*s->described));
	if (!s->scratch || !s->described) {
		free(s->frames);
		free(s->scratch);
		free(s->described);
		free(s);
		return NULL;
	}
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
	free(s->scratch);
	free(s->frames);
	free(s->described);
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
				      const char *caller_symbol, __u64 ret_addr)
{
	const struct mapping *m = mapping_of(s, ret_addr - 1);
	struct object_file *obj;
	uint64_t target;

	if (func != HT_FREE || !s->alloc->glibc)
		return false;
	if (caller_symbol)
		return !strcmp(caller_symbol, "tcache_thread_shutdown") ||
		       !strcmp(caller_symbol, "__malloc_arena_thread_freeres");
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

/* The names a program calls to map memory (libc's public and internal ones). */
static bool is_mapping_call(const char *name)
{
	static const char *const names[] = { "mmap",	"mmap64",   "munmap",	"mremap",
					     "madvise", "brk",	    "sbrk",	"__mmap",
					     "__mmap64", "__munmap", "__mremap", "__madvise",
					     "__brk",	"__sbrk" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(name, names[i]))
			return true;
	}
	return false;
}

/*
 * A system call's wrapper may be more than libc's: Open MPI's memory patcher rewrites
 * munmap and friends to jump to its own hooks, which make the call. The first frame whose
 * call instruction calls a mapping function by name made the call: the frames inside it
 * are the wrapper, entry points that neither rule charges.
 */
static void mark_syscall_wrapper(struct symbolizer *s, const struct named_stack *st,
				 struct frame *frames)
{
	for (size_t i = 1; i < st->nr; i++) {
		const struct named_stack_frame *f = &st->frames[i];
		struct object_file *obj;
		const char *callee;

		if (f->tail_called || !(obj = object_of(s, f->m)))
			continue;
		callee = object_file__callee(obj, f->offset);
		if (callee && is_mapping_call(callee)) {
			for (size_t j = 1; j < i; j++)
				frames[j].entry_point = true;
			return;
		}
	}
}

/* Keep the stack's frames, named, for --stacks. */
static struct stack_record *record_stack(struct symbolizer *s, const struct named_stack *st,
					 bool complete)
{
	struct stack_frame *described = s->described;

	for (size_t i = 0; i < st->nr; i++) {
		const struct named_stack_frame *f = &st->frames[i];

		described[i] = (struct stack_frame){
			.library = f->m->path,
			.offset = f->offset,
			.function = f->name.function,
			.symbol = f->name.symbol,
			.file = f->name.file,
			.line = f->name.line,
			.inlined = f->name.inlined,
			.tail_called = f->tail_called,
		};
	}
	return stack_records__intern(s->records, described, st->nr, complete);
}

/*
 * Resolve a stack: of a call to func, or with entry (not NULL) to another API's entry point.
 * *cut: a frame lay in no mapping (a later mapping may name it).
 */
static int resolve_uncached(struct symbolizer *s, enum ht_func func,
			    const struct symbolizer_entry *entry, const __u64 *pcs, __u32 nr,
			    struct resolved_call *out, bool *cut)
{
	const struct allocator *api = entry ? entry->object : s->alloc;
	struct stack_context ctx = { s->pid,	     s->cache,	   &s->maps, api,
				     s->exe_dev, s->exe_inode, s->frames };
	struct frame frames[NAMED_STACK_MAX];
	struct named_stack *st = s->scratch;
	struct attribution a;
	int err;

	*cut = false;
	if (entry) {
		err = named_stack__build_from(&ctx, entry->name, entry->offset, pcs, nr, st);
	} else {
		if (nr >= 2 && has_aliases(s->alloc, func))
			func = told_apart(s, func, pcs[1]);
		err = named_stack__build(&ctx, func, pcs, nr, st);
	}
	if (err)
		return err;
	*cut = st->cut;
	for (size_t i = 0; i < st->nr; i++) {
		const struct named_stack_frame *f = &st->frames[i];

		frames[i] = (struct frame){
			.object = f->m->path,
			.symbol = f->name.function,
			.in_executable = f->in_executable,
			.in_allocator = f->in_allocator,
			.entry_point = i == 0 || f->name.cxx_allocator,
		};
	}
	if (entry && entry->syscall)
		mark_syscall_wrapper(s, st, frames);
	*out = (struct resolved_call){ .func = func, .end_dev = st->end_dev,
				       .end_inode = st->end_inode };
	out->internal = !entry && st->valid >= 2 &&
			is_allocator_housekeeping(s, func, st->caller_symbol, pcs[1]);
	a = st->nr ? attribute(frames, st->nr, s->rule) : (struct attribution){};
	out->complete = a.complete;
	if (a.frame == 0) {
		/* The program called the allocator: under the entry rule, one group for it. */
		/* A system call's: the object of its wrapper (libc, a static program). */
		out->library = strpool__intern(&s->names, entry && entry->syscall && st->nr ?
								   frames[0].object : api->path);
		out->function = strpool__intern(&s->names,
						s->rule == ATTRIBUTE_ENTRY ? NAMING_PROGRAM :
						entry			   ? entry->name :
									     ht_func_names[func]);
	} else {
		out->library = strpool__intern(&s->names, frames[a.frame].object);
		out->function = strpool__intern(&s->names, frames[a.frame].symbol);
	}
	if (!out->library || !out->function)
		return -ENOMEM;
	/* Recorded stacks: the malloc family's allocation sites, the OS view's calls. */
	if (s->records && (!entry || entry->syscall) && !out->internal &&
	    !(out->record = record_stack(s, st, a.complete)))
		return -ENOMEM;
	return 0;
}

/* Keep call as the answer for this stack: by its id, or by its frames without one. */
/* Keep call as the answer for stack id: its entry, or NULL when out of memory. */
static struct cached_stack *remember_id(struct symbolizer *s, __u64 func, __u64 stack_id,
					const struct resolved_call *call, bool cut)
{
	struct cached_stack *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->call = *call;
	c->key.func = func;
	c->key.id = stack_id;
	if (cut)
		HASH_ADD(hh, s->cut_by_id, key, sizeof(c->key), c);
	else
		HASH_ADD(hh, s->by_id, key, sizeof(c->key), c);
	return c;
}

static int remember(struct symbolizer *s, __u64 func, __u64 stack_id, const __u64 *frames,
		    __u32 nr_frames, const struct resolved_call *call, bool cut)
{
	struct cached_stack *c;

	if (stack_id)
		return remember_id(s, func, stack_id, call, cut) ? 0 : -ENOMEM;
	if (cut)
		return 0; /* rare: resolved again next time */
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->call = *call;
	c->key.func = func;
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

static struct stack_memo *memo_of(struct symbolizer *s, __u64 stack_id, __u64 func)
{
	return &s->memo[(stack_id ^ func << 56) * 0x9E3779B97F4A7C15ull >> 56];
}

/* Whom a shared stack's answer holds for: processes of this program and allocator. */
static struct node_answer_key node_key(const struct symbolizer *s, __u64 func, __u64 stack_id)
{
	return (struct node_answer_key){
		.stack_id = stack_id,
		.func = func,
		.exe_dev = s->exe_dev,
		.exe_inode = s->exe_inode,
		.alloc_dev = s->alloc->dev,
		.alloc_inode = s->alloc->inode,
	};
}

static bool is_shared(const struct symbolizer *s, __u64 stack_id)
{
	return s->node && (stack_id & HT_STACK_ID_SHARED);
}

/*
 * Another process named this shared stack: take its answer, the stack recorded here too
 * (this process's call tree and sites), remembered as this process's. NULL: none yet, or
 * no memory.
 */
static const struct cached_stack *take_from_node(struct symbolizer *s, __u64 func,
						 __u64 stack_id)
{
	struct node_answer_key key = node_key(s, func, stack_id);
	const struct node_answer *a = node_stacks__find(s->node, &key);
	struct resolved_call call;

	if (!a)
		return NULL;
	call = a->call;
	if (a->model && s->records &&
	    !(call.record = stack_records__intern_like(s->records, a->model)))
		return NULL;
	return remember_id(s, func, stack_id, &call, false);
}

/* Give the node this shared stack's answer, just found (the stack it recorded: described). */
static void give_to_node(struct symbolizer *s, __u64 func, __u64 stack_id,
			 const struct resolved_call *call, size_t nr_described)
{
	struct node_answer answer = { .key = node_key(s, func, stack_id), .call = *call };

	/* Out of memory, the next process names the stack itself: nothing is lost. */
	node_stacks__publish(s->node, &answer, call->record ? s->described : NULL, nr_described);
}

bool symbolizer__cached(struct symbolizer *s, enum ht_func func, __u64 stack_id,
			struct resolved_call *out)
{
	struct stack_memo *memo = memo_of(s, stack_id, func);
	__u64 key[2] = { stack_id, func }; /* struct cached_stack's key: no padding */
	const struct cached_stack *c;

	if (memo->c && memo->id == stack_id && memo->func == (__u64)func) {
		*out = memo->c->call;
		return true;
	}
	HASH_FIND(hh, s->by_id, key, sizeof(key), c);
	if (!c)
		HASH_FIND(hh, s->cut_by_id, key, sizeof(key), c);
	if (!c && is_shared(s, stack_id))
		c = take_from_node(s, func, stack_id);
	if (!c)
		return false;
	*memo = (struct stack_memo){ stack_id, func, c };
	*out = c->call;
	return true;
}

bool symbolizer__cached_frames(struct symbolizer *s, enum ht_func func, const __u64 *frames,
			       __u32 nr_frames, struct resolved_call *out)
{
	__u64 key[HT_MAX_FRAMES + 1];
	struct cached_stack *c;

	if (nr_frames > HT_MAX_FRAMES)
		return false;
	key[0] = func;
	memcpy(key + 1, frames, nr_frames * sizeof(__u64));
	HASH_FIND(hh, s->by_frames, key, (nr_frames + 1) * sizeof(__u64), c);
	if (c)
		*out = c->call;
	return c != NULL;
}

/* func: the cache's key for the entry point, HT_NR_FUNCS + entry->key for another API's. */
static int resolve(struct symbolizer *s, __u64 func, const struct symbolizer_entry *entry,
		   __u64 stack_id, const __u64 *frames, __u32 nr_frames, struct resolved_call *out)
{
	struct cached_stack *c = NULL;
	bool cut;
	int err;

	if (nr_frames > HT_MAX_FRAMES)
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
	err = resolve_uncached(s, entry ? HT_MALLOC : (enum ht_func)func, entry, frames, nr_frames,
			       out, &cut);
	if (err)
		return err;
	if (!entry && !cut && is_shared(s, stack_id))
		give_to_node(s, func, stack_id, out, s->scratch->nr);
	return remember(s, func, stack_id, frames, nr_frames, out, cut);
}

/* The executable mapping of dev:inode holding offset (the end too: a return address). */
static const struct mapping *mapping_of_file(const struct symbolizer *s, uint64_t dev,
					     uint64_t inode, uint64_t offset)
{
	for (size_t i = 0; i < s->maps.nr; i++) {
		const struct mapping *m = &s->maps.maps[i];

		if (m->executable && same_file(m, dev, inode) && offset >= m->offset &&
		    offset - m->offset <= m->end - m->start)
			return m;
	}
	return NULL;
}

static int place_frames(struct symbolizer *s, struct ht_stack *stack)
{
	const struct mapping *m = NULL;
	uint64_t dev = 0, inode = 0;
	uint32_t file = 0;

	for (__u32 i = 0; i < stack->nr; i++) {
		uint32_t id = stack->frames[i] >> HT_FRAME_OFFSET_BITS;
		uint64_t offset = stack->frames[i] & ((1ULL << HT_FRAME_OFFSET_BITS) - 1);

		/* Frames of one file come in runs: its mapping is looked for once a run. */
		if (id != file || !m || offset < m->offset || offset - m->offset > m->end - m->start) {
			if (!node_stacks__file(s->node, id, &dev, &inode) ||
			    !(m = mapping_of_file(s, dev, inode, offset)))
				return -ENOENT;
			file = id;
		}
		stack->frames[i] = m->start + offset - m->offset;
	}
	stack->pid = s->pid;
	return 0;
}

int symbolizer__place(struct symbolizer *s, struct ht_stack *stack)
{
	struct ht_stack shared;

	if (stack->pid)
		return 0;
	if (!s->node || stack->nr > HT_STORED_FRAMES)
		return -EINVAL;
	shared = *stack;
	if (place_frames(s, stack) == 0)
		return 0;
	/* A file mapped since the maps were read last. */
	*stack = shared;
	read_maps(s);
	return place_frames(s, stack);
}

int symbolizer__resolve(struct symbolizer *s, enum ht_func func, __u64 stack_id,
			const __u64 *frames, __u32 nr_frames, struct resolved_call *out)
{
	if (func >= HT_NR_FUNCS)
		return -EINVAL;
	return resolve(s, func, NULL, stack_id, frames, nr_frames, out);
}

int symbolizer__resolve_entry(struct symbolizer *s, const struct symbolizer_entry *entry,
			      __u64 stack_id, const __u64 *frames, __u32 nr_frames,
			      struct resolved_call *out)
{
	__u64 key = HT_NR_FUNCS + (__u64)entry->key;

	if (stack_id && symbolizer__cached(s, key, stack_id, out))
		return 0;
	return resolve(s, key, entry, stack_id, frames, nr_frames, out);
}

int symbolizer__resolve_syscall(struct symbolizer *s, enum ht_os_call call, const char *name,
				__u64 stack_id, const __u64 *frames, __u32 nr_frames,
				struct resolved_call *out)
{
	struct symbolizer_entry entry = {
		.name = name,
		.object = s->alloc,
		.syscall = true,
	};
	__u64 key = symbolizer_syscall_key(call);

	if (call >= HT_NR_OS_CALLS)
		return -EINVAL;
	if (stack_id && symbolizer__cached(s, key, stack_id, out))
		return 0;
	return resolve(s, key, &entry, stack_id, frames, nr_frames, out);
}
