// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "frame_names.h"
#include "named_stack.h"

/* A function of the stack, where tail calls are looked for: the file, and its start. */
struct function_at {
	struct object_file *obj;
	const struct mapping *m;
	uint64_t start;
	bool start_known;
	const char *name; /* its source name */
};

static const struct mapping *mapping_of(const struct stack_context *ctx, __u64 pc)
{
	const struct mapping *m = procmaps__find(ctx->maps, pc);

	return m && m->executable ? m : NULL;
}

static bool same_file(const struct mapping *m, uint64_t dev, uint64_t inode)
{
	return m->dev == dev && m->inode == inode;
}

static struct named_stack_frame *push(struct named_stack *st, const struct stack_context *ctx,
				      const struct mapping *m, uint64_t offset)
{
	struct named_stack_frame *f;

	if (st->nr >= NAMED_STACK_MAX)
		return NULL;
	f = &st->frames[st->nr++];
	*f = (struct named_stack_frame){
		.m = m,
		.offset = offset,
		.in_executable = same_file(m, ctx->exe_dev, ctx->exe_inode),
		.in_allocator = same_file(m, ctx->alloc->dev, ctx->alloc->inode),
	};
	return f;
}

/*
 * The function the call instruction before a return address (fn, in obj mapped at m)
 * calls: a direct call's target, or the definition of the symbol its PLT stub or GOT slot
 * names, looked for first where the function below it on the stack lies, then in every
 * file mapped.
 */
static bool find_callee(const struct stack_context *ctx, struct object_file *obj,
			const struct mapping *m, const struct frame_names *fn,
			const struct function_at *inner, struct function_at *out);

/* find_callee, through the frame's memo slot (NULL: none). */
static bool callee_of(const struct stack_context *ctx, struct object_file *obj,
		      const struct mapping *m, const struct frame_names *fn,
		      const struct function_at *inner, struct function_at *out, size_t slot)
{
	typeof(ctx->memo->slots[0]) *memo = ctx->memo && slot < FRAME_MEMO_SLOTS ?
						    &ctx->memo->slots[slot] :
						    NULL;
	bool found;

	if (memo && memo->callee_found && memo->asked_for == inner->obj &&
	    memo->asked_m == inner->m) {
		*out = (struct function_at){ memo->callee_obj, memo->callee_m, memo->callee_start,
					     true, NULL };
		return memo->callee_found > 0;
	}
	found = find_callee(ctx, obj, m, fn, inner, out);
	if (memo) {
		memo->asked_for = inner->obj;
		memo->asked_m = inner->m;
		memo->callee_found = found ? 1 : -1;
		memo->callee_obj = out->obj;
		memo->callee_m = out->m;
		memo->callee_start = out->start;
	}
	return found;
}

static bool find_callee(const struct stack_context *ctx, struct object_file *obj,
			const struct mapping *m, const struct frame_names *fn,
			const struct function_at *inner, struct function_at *out)
{
	const char *name = fn->callee;
	uint64_t at;

	*out = (struct function_at){ .obj = obj, .m = m, .start_known = true };
	if (fn->direct) {
		out->start = fn->target;
		return true;
	}
	if (!name)
		return false;
	if (inner->obj && (at = object_file__offset_of(inner->obj, name))) {
		*out = (struct function_at){ inner->obj, inner->m, at, true, NULL };
		return true;
	}
	for (size_t i = 0; i < ctx->maps->nr; i++) {
		const struct mapping *mm = &ctx->maps->maps[i];
		struct object_file *o;

		if (!mm->executable || mm->path[0] != '/' ||
		    !(o = symcache__get_mapped(ctx->cache, ctx->pid, mm)))
			continue;
		if ((at = object_file__offset_of(o, name))) {
			*out = (struct function_at){ o, mm, at, true, NULL };
			return true;
		}
	}
	return false;
}

/*
 * The call before a return address called a function other than the one the stack shows
 * below it: that function ended in a jump (a tail call) and is put back, as tail_called.
 * (libstdc++'s operator delete jumps to free; MPI_Finalize to ompi_mpi_finalize.)
 */
static int put_back_tail_call(struct named_stack *st, const struct stack_context *ctx,
			      struct object_file *obj, const struct mapping *m,
			      const struct frame_names *fn, const struct function_at *inner,
			      bool inner_is_entry, size_t slot)
{
	struct function_at callee;
	struct frame_names room;
	const struct frame_names *called;
	struct named_frame name;
	struct named_stack_frame *f;

	if (!inner->obj || !callee_of(ctx, obj, m, fn, inner, &callee, slot))
		return 0;
	if (callee.obj == inner->obj && (!inner->start_known || callee.start == inner->start))
		return 0;
	/* The allocator's own ways into its entry points are its business. */
	if (inner_is_entry && same_file(callee.m, ctx->alloc->dev, ctx->alloc->inode) &&
	    !same_file(callee.m, ctx->exe_dev, ctx->exe_inode))
		return 0;
	if (!(called = frame_names__code(callee.obj, callee.start, &room)))
		return -ENOMEM;
	name = called->names[called->nr - 1];
	/* foo jumping to its own split-off part foo.part.0 is one function of the source. */
	if (inner->name && !strcmp(name.function, inner->name))
		return 0;
	if (!(f = push(st, ctx, callee.m, callee.start)))
		return 0;
	f->name = name;
	f->name.inlined = false;
	f->tail_called = true;
	return 0;
}

/*
 * The mapping, file and names of the return address pc (*m NULL: in no code mapping, and
 * NULL returned): from the process's memo, else answered once per node for the file and
 * offset. NULL with *m set only when out of memory.
 */
static const struct frame_names *frame_at(const struct stack_context *ctx, __u64 pc,
					  const struct mapping **m, struct object_file **obj,
					  struct frame_names *room, size_t *slot)
{
	size_t i = (pc * 0x9E3779B97F4A7C15ull) >> (64 - FRAME_MEMO_BITS);
	const struct frame_names *fn;

	*slot = SIZE_MAX;
	if (ctx->memo && ctx->memo->slots[i].pc == pc && pc) {
		*m = ctx->memo->slots[i].m;
		*obj = ctx->memo->slots[i].obj;
		*slot = i;
		return ctx->memo->slots[i].names;
	}
	/* A return address may lie past the end of a call to a noreturn function. */
	*m = mapping_of(ctx, pc - 1);
	*obj = *m ? symcache__get_mapped(ctx->cache, ctx->pid, *m) : NULL;
	if (!*obj)
		return NULL;
	fn = frame_names__return(*obj, pc - (*m)->start + (*m)->offset, room);
	if (fn && fn != room && ctx->memo) {
		ctx->memo->slots[i] = (typeof(ctx->memo->slots[0])){ .pc = pc, .m = *m,
								      .obj = *obj, .names = fn };
		*slot = i;
	}
	return fn;
}

/* Frame 0: the entry point the program called (free, not its alias cfree). */
static int name_entry_point(struct named_stack *st, const struct stack_context *ctx,
			    const char *name, uint64_t offset, __u64 pc, struct function_at *fn)
{
	const struct mapping *m = mapping_of(ctx, pc);
	struct object_file *obj = m ? symcache__get_mapped(ctx->cache, ctx->pid, m) : NULL;
	struct named_stack_frame *f;

	*fn = (struct function_at){ .name = name };
	if (!m)
		return 0;
	f = push(st, ctx, m, pc - m->start + m->offset);
	f->in_allocator = true;
	f->name.function = name;
	/* Its raw symbol too is the name called, where the file defines it there. */
	if (obj && object_file__offset_of(obj, name) == f->offset)
		f->name.symbol = name;
	else if (obj && obj->syms)
		f->name.symbol = elfsyms__lookup(obj->syms, f->offset);
	/* Offset 0: not known (a system call's pc lies inside its wrapper). */
	*fn = (struct function_at){ obj, m, offset, offset != 0, name };
	return 0;
}

int named_stack__build(const struct stack_context *ctx, enum ht_func func, const __u64 *pcs,
		       __u32 nr, struct named_stack *st)
{
	return named_stack__build_from(ctx, ht_func_names[func], ctx->alloc->offsets[func], pcs,
				       nr, st);
}

int named_stack__build_from(const struct stack_context *ctx, const char *entry_name,
			    uint64_t entry_offset, const __u64 *pcs, __u32 nr, struct named_stack *st)
{
	struct frame_names room;
	struct function_at inner;
	int err;

	memset(st, 0, offsetof(struct named_stack, frames));
	st->nr = 0;
	st->valid = 1;
	if (!nr)
		return 0;
	err = name_entry_point(st, ctx, entry_name, entry_offset, pcs[0], &inner);
	if (err || !st->nr)
		return err;
	for (__u32 i = 1; i < nr; i++) {
		const struct mapping *m;
		const struct named_frame *names;
		const struct frame_names *fn;
		struct object_file *obj;
		uint64_t off;
		size_t n, slot;

		if (!(fn = frame_at(ctx, pcs[i], &m, &obj, &room, &slot))) {
			if (!m) {
				st->cut = true;
				break; /* not code: everything beyond is unreliable */
			}
			return -ENOMEM; /* its only failure */
		}
		off = pcs[i] - m->start + m->offset;
		names = fn->names;
		n = fn->nr;
		st->valid = i + 1;
		st->end_dev = m->dev;
		st->end_inode = m->inode;
		err = put_back_tail_call(st, ctx, obj, m, fn, &inner, i == 1, slot);
		if (err)
			return err;
		/*
		 * Inlined frames only where room is left for every raw frame still to come and
		 * its tail call: a deep C++ stack loses inlined frames, never its outer frames.
		 */
		for (size_t j = 0; j < n; j++) {
			struct named_stack_frame *f;

			if (j + 1 < n && st->nr + 1 + 2 * (nr - i) > NAMED_STACK_MAX)
				continue;
			if ((f = push(st, ctx, m, off)))
				f->name = names[j];
		}
		if (i == 1)
			st->caller_symbol = names[n - 1].symbol;
		inner = (struct function_at){ .obj = obj, .m = m, .start = fn->start,
					      .start_known = fn->start_known,
					      .name = names[n - 1].function };
	}
	return 0;
}
