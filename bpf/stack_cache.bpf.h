/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A per-thread cache of recent stacks: a loop that calls malloc from the same frames again
 * and again gets its stack id without a walk through the unwind tables nor a look in the
 * stacks map.
 *
 * A walk is a function of the registers it starts from, the words of user memory it reads
 * and the tables it looks rows up in. So a cached stack is reused only when its walk
 * started at the same pc and sp (and rbp, where the walk used it), under the same tables
 * (a generation userspace bumps whenever a process's tables or stack ids change), when
 * every word it read can still be read, and those whose values it used still hold them:
 * then each step computes the same addresses and the same frames. Nothing is assumed, so
 * nothing can be stale: a recursion to another depth, a longjmp, a coroutine on a reused
 * stack or a signal handler changes a word read, or the start, and the stack is walked
 * afresh (tests/targets/stack_chains.c does each).
 */
#ifndef HEAPTAP_STACK_CACHE_BPF_H
#define HEAPTAP_STACK_CACHE_BPF_H

#include "heaptap.bpf.h"
#include "stacks.bpf.h"
#include "unwind.bpf.h"

#define STACK_CACHE_SLOTS 4
/* The words of a cached walk within this many bytes of its lowest are read again at once. */
#define STACK_SPAN_BYTES 2048
_Static_assert(STACK_SPAN_BYTES == UNWIND_CHUNK_BYTES, "the span is the walk's chunk");

struct stack_cache_slot {
	__u64 pc, sp, bp; /* where the walk started */
	__u64 generation; /* of the tables and stack ids it was found under */
	__u64 stack_id;	  /* 0: the slot holds nothing */
	__u64 span_start; /* the lowest address the walk read */
	__u32 span_len;	  /* bytes from there to the end of the highest word it read */
	__u32 nr;	  /* frames */
	__u32 flags;	  /* HT_F_STACK_* the walk set */
	__u32 pad;
	__u64 caller;	  /* frames[1]: the return address (return_slot__note wants it) */
	struct unwind_read_log log;
};

/* A thread's few recent stacks; any slot may hold any (a malloc's and its free's, say). */
struct stack_cache {
	__u32 next; /* the slot a walk replaces next, round robin */
	__u32 pad;
	struct stack_cache_slot slots[STACK_CACHE_SLOTS];
	/* A slot's words, read again to compare; then the walk's chunks (unwind.bpf.h). */
	struct unwind_chunk span;
};

/* Bumped by userspace (tracer__stacks_changed) after it changes any tables or stack ids. */
__u64 stack_cache_generation __weak;

/* Hits and walks, per CPU, for the report. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} stack_cache_stats SEC(".maps") __weak;

enum { STACK_CACHE_HITS, STACK_CACHE_WALKS };

static __always_inline void stack_cache_count(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&stack_cache_stats, &which);

	if (n)
		(*n)++;
}

/*
 * Each word the cached walk read can still be read, and those whose values it used hold
 * them still. The words near the start (most of them: a stack's inner frames are small)
 * come in one read of user memory, which costs about what one frame of a walk does; the
 * others, past a big frame, one by one. A global function: verified once, not once for
 * each slot of stack_cache_find() inlined.
 */
__weak __noinline bool stack_cache_same_reads(struct stack_cache *cache,
					      const struct stack_cache_slot *c)
{
	__u32 len;

	if (!cache || !c)
		return false;
	len = c->span_len;
	if (len < 8 || len > STACK_SPAN_BYTES)
		return false;
	/*
	 * The length read is the length checked: clang may otherwise compare one copy and
	 * pass another, whose bounds a 6.1 verifier does not know.
	 */
	barrier_var(len);
	if (bpf_probe_read_user(cache->span.data, len, (void *)c->span_start))
		return false;
	for (__u32 i = 0; i < UNWIND_LOG_READS; i++) {
		__u64 offset, value;

		if (i >= c->log.nr)
			return true;
		offset = c->log.reads[i].addr - c->span_start;
		if (offset <= len - 8)
			__builtin_memcpy(&value, &cache->span.data[offset & (STACK_SPAN_BYTES - 1)],
					 sizeof(value));
		else if (bpf_probe_read_user(&value, sizeof(value),
					     (void *)c->log.reads[i].addr))
			return false;
		if (((c->log.used >> i) & 1) && value != c->log.reads[i].value)
			return false;
	}
	return true;
}

/* The span read at once: from the lowest word read, as far as the words go (or fit). */
static __always_inline void find_span(struct stack_cache_slot *c)
{
	__u64 low = ~0ULL, high = 0;

	for (__u32 i = 0; i < UNWIND_LOG_READS; i++) {
		__u64 addr;

		if (i >= c->log.nr)
			break;
		addr = c->log.reads[i].addr;
		if (addr < low)
			low = addr;
		if (addr > high)
			high = addr;
	}
	c->span_start = low;
	c->span_len = high - low + 8 > STACK_SPAN_BYTES ? STACK_SPAN_BYTES : high - low + 8;
}

/*
 * The slot whose walk started where this one does (pc, sp, rbp where used, tables) holds
 * its stack if the words it read are unchanged (stack_cache_same_reads): then *stack_id, *nr,
 * *caller and *flags are that stack's. Otherwise the slot a walk is to fill is the one cache->next names.
 */
static __always_inline bool stack_cache_find(struct stack_cache *cache, __u64 pc, __u64 sp,
					     __u64 bp, __u64 generation, __u64 *stack_id,
					     __u32 *nr, __u64 *caller, __u32 *flags)
{
	for (__u32 i = 0; i < STACK_CACHE_SLOTS; i++) {
		struct stack_cache_slot *c = &cache->slots[i];

		if (!c->stack_id || c->pc != pc || c->sp != sp ||
		    (c->log.bp_used && c->bp != bp) || c->generation != generation)
			continue;
		if (!stack_cache_same_reads(cache, c)) {
			cache->next = i; /* its stack changed: the walk replaces it */
			return false;
		}
		*stack_id = c->stack_id;
		*nr = c->nr;
		*caller = c->caller;
		*flags |= c->flags;
		return true;
	}
	return false;
}

/*
 * The probed call's stack, as st->nr and its id *stack_id (the frames themselves only when
 * walked, when userspace may need them; frames[1] always); *fresh as stack_id_of() says.
 * recorded: as unwind_user_stack() takes it. key: room for the stack as the map keeps it.
 */
static __always_inline void cached_user_stack(struct pt_regs *regs, __u32 skip,
					       const struct return_slot *recorded,
					       struct ht_stack *st, __u64 *stack_id,
					       __u32 *flags, bool *fresh,
					       struct stack_cache *cache, struct ht_stack *key)
{
	__u64 generation = stack_cache_generation;
	__u64 pc = PT_REGS_IP(regs) - skip, sp = PT_REGS_SP(regs), bp = PT_REGS_FP(regs);
	struct stack_cache_slot *c;
	__u32 walk_flags = 0;

	if (stack_cache_find(cache, pc, sp, bp, generation, stack_id, &st->nr, &st->frames[1],
			     flags)) {
		stack_cache_count(STACK_CACHE_HITS);
		return;
	}
	stack_cache_count(STACK_CACHE_WALKS);
	/* Read back from the map: one slot of unknown offset, not one walk per slot to verify. */
	c = &cache->slots[cache->next++ & (STACK_CACHE_SLOTS - 1)];
	c->stack_id = 0;
	c->log.nr = 0;
	c->log.uncacheable = 0;
	/* The span, read to compare slots before the walk, is the walk's room for chunks. */
	st->nr = unwind_user_stack_logged(regs, skip, st->pid, recorded, st->frames, &walk_flags,
					  &c->log, &cache->span, key);
	*flags |= walk_flags;
	key->nr = st->nr;
	if (key->pid) {
		/* A frame in no file: the process's own stack, by its addresses. */
		key->pid = st->pid;
		__builtin_memcpy(key->frames, st->frames, HT_STORED_FRAMES * sizeof(key->frames[0]));
	}
	*stack_id = stack_id_of(key, fresh);
	if (c->log.uncacheable || c->log.nr == 0 || c->log.nr > UNWIND_LOG_READS)
		return;
	find_span(c);
	c->pc = pc;
	c->sp = sp;
	c->bp = bp;
	c->generation = generation;
	c->nr = st->nr;
	c->caller = st->frames[1];
	c->flags = walk_flags;
	c->stack_id = *stack_id; /* 0 (the stack went inline) leaves the slot empty */
}

#endif
