/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * From a call's raw stack to the group it is charged to, for one process: frames are
 * validated against the process's executable mappings, named by named_stack.h (inlined
 * functions and tail calls included, naming.h's rules), and the attribution rule picks the
 * naming frame. Results are cached per distinct stack; --stacks records keep every frame.
 */
#ifndef HEAPTAP_SYMBOLIZER_H
#define HEAPTAP_SYMBOLIZER_H

#include <stdbool.h>
#include <sys/types.h>
#include "allocator_object.h"
#include "procmaps.h"
#include "attribution.h"
#include "node_stacks.h"
#include "resolved_call.h"
#include "stack_records.h"
#include "symcache.h"

struct symbolizer;

/*
 * The allocator must outlive the symbolizer, and records too (NULL: stacks are not
 * recorded), and node (NULL: no stack is shared with other processes). NULL with errno
 * when /proc cannot be read.
 */
struct symbolizer *symbolizer__new(pid_t pid, struct symcache *cache,
				   const struct allocator *alloc, enum attribution_rule rule,
				   struct stack_records *records, struct node_stacks *node);
void symbolizer__free(struct symbolizer *s);

/*
 * The mappings changed (the loader said so). fresh: the process's maps, just read, which
 * the symbolizer takes (fresh is left empty); NULL: read them (or, failing, at the next
 * miss).
 */
void symbolizer__mappings_changed(struct symbolizer *s, struct procmaps *fresh);

/*
 * The answer for a stack id met before, if still good (then true, and *out): by this
 * process, or for a shared id (HT_STACK_ID_SHARED) by another process of the node.
 */
bool symbolizer__cached(struct symbolizer *s, enum ht_func func, __u64 stack_id,
			struct resolved_call *out);
/*
 * The same for a stack that came without an id (its frames inline), met before. Reads
 * only this symbolizer's own table: no shared cache is touched.
 */
bool symbolizer__cached_frames(struct symbolizer *s, enum ht_func func, const __u64 *frames,
			       __u32 nr_frames, struct resolved_call *out);
/*
 * Resolve one call: its stack's frames, and the id they came under (0: none; else an id
 * symbolizer__cached has no answer for). The strings stay valid as long as the
 * symbolizer. 0 or -errno.
 */
int symbolizer__resolve(struct symbolizer *s, enum ht_func func, __u64 stack_id,
			const __u64 *frames, __u32 nr_frames, struct resolved_call *out);

/*
 * A stack as the stacks map keeps it, placed in this process: a shared stack's frames
 * (files and offsets, pid 0) become the addresses this process runs them at; a stack of
 * the process's own is left as it is. 0, or -ENOENT when a frame's file is not mapped here.
 */
int symbolizer__place(struct symbolizer *s, struct ht_stack *stack);

/* An entry point of another allocator API (--allocator), as a call's frame 0. */
struct symbolizer_entry {
	const char *name;
	uint64_t offset;		 /* in object's file */
	const struct allocator *object; /* the file that defines it: path, dev, inode */
	uint32_t key;			 /* one per entry point, for the cache */
	bool syscall;			 /* a mapping system call (symbolizer__resolve_syscall) */
};

/* symbolizer__resolve for a call to entry; its answers are cached too (never recorded). */
int symbolizer__resolve_entry(struct symbolizer *s, const struct symbolizer_entry *entry,
			      __u64 stack_id, const __u64 *frames, __u32 nr_frames,
			      struct resolved_call *out);

/*
 * A mapping system call's stack: frames[0] the pc after its syscall instruction, inside the
 * wrapper (offset unknown). Charged by the same rule; a program's own call is charged to
 * the object of the wrapper (entry rule: "(program)", caller rule: the call's name), and a
 * call made through interposed hooks (Open MPI's memory patcher) to the function that
 * called the mapping function. Stacks are recorded (out->record) for the OS view's
 * per-stack figures; a record's calls count only the malloc family's. 0 or -errno.
 */
int symbolizer__resolve_syscall(struct symbolizer *s, enum ht_os_call call, const char *name,
				__u64 stack_id, const __u64 *frames, __u32 nr_frames,
				struct resolved_call *out);
/* The key symbolizer__cached knows a system call's stacks by: past every API's entries. */
static inline enum ht_func symbolizer_syscall_key(enum ht_os_call call)
{
	return (enum ht_func)(HT_NR_FUNCS + 0x10000 + call);
}

#endif
