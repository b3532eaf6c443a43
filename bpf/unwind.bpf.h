/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The user-stack unwinder: frames[0] is the probed pc, frames[1] its caller, then outwards.
 *
 * Each frame is unwound by its file's .eh_frame rows (built by userspace, see
 * user/unwind_maps.c): the row covering the pc says where the CFA is and where the
 * caller's rbp and return address were saved. Where no table covers a pc (a file without
 * .eh_frame, JIT code, or --unwind fp) the frame-pointer chain is followed instead. The
 * walk ends at the outermost frame (return address undefined), at a rule it cannot follow,
 * or at a stack that does not climb; userspace validates every frame it returns.
 */
#ifndef HEAPTAP_UNWIND_BPF_H
#define HEAPTAP_UNWIND_BPF_H

#include "heaptap.bpf.h"
#include <bpf/bpf_tracing.h>
#include "return_slots.bpf.h"

/* Every traced file's rows, each file's contiguous and sorted; userspace sizes it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1 << 20);
	__type(key, __u32);
	__type(value, struct ht_unwind_row);
} unwind_rows SEC(".maps") __weak;

/* pid -> its executable mappings and their files' rows. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct ht_process_mappings);
} unwind_processes SEC(".maps") __weak;

/* Binary-search bounds: 2^10 > HT_MAX_MAPPINGS, 2^24 rows is more than any row map. */
#define MAPPING_SEARCH_STEPS 10
#define ROW_SEARCH_STEPS 24

/*
 * What a walk read, so that a later walk from the same registers can be proven to give
 * the same frames by reading the same words again (bpf/stack_cache.bpf.h).
 */
#define UNWIND_LOG_READS 64

struct unwind_read_log {
	__u32 nr;	   /* reads made; past UNWIND_LOG_READS only counted */
	__u8 bp_source;	   /* where the walk's bp came from: a read's index, or BP_* */
	__u8 bp_used;	   /* the walk used rbp's value at its start */
	__u16 uncacheable; /* a read failed, or a value was not the memory's own */
	/*
	 * The reads whose values the walk used. A saved rbp matters only if a later frame
	 * uses it: in code without frame pointers rbp is an ordinary register (a loop
	 * counter, say) whose saved value changes from call to call.
	 */
	__u64 used;
	struct {
		__u64 addr, value;
	} reads[UNWIND_LOG_READS];
};

#define BP_INITIAL 0xff /* rbp's value at the start */
#define BP_NONE 0xfe	/* none: bp is 0 */

/* The log of walks nobody replays (written, never read: programs may share it). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unwind_read_log);
} unwind_scratch_log SEC(".maps") __weak;

/*
 * The user stack is read a chunk at a time where the walk has room for one (a thread's
 * stack cache lends it): the words a frame saves lie a few dozen bytes from the next
 * frame's, and each read of user memory has a cost of its own whatever its size. A chunk
 * is aligned to its size, so it lies in the page of the word asked for: it can be read
 * whenever that word can. Sixteen ranks' MPI_Init, the entry program's time per call
 * (kernel BPF statistics): 2.7-3.2 us reading word by word, 2.1-2.4 us by chunks of 512
 * bytes, 1.8-1.9 us by chunks of 2048 (2.0 us as read below, by a global function).
 */
#define UNWIND_CHUNK_BYTES 2048

struct unwind_chunk {
	__u64 start; /* the user address data[0] holds; 0: none read yet */
	__u8 data[UNWIND_CHUNK_BYTES + 8];
};

/*
 * The word at addr, from the chunk read last or from one read now; false when it is not
 * there to take (across a chunk's end, or unreadable): then it is read alone. A global
 * function, verified once. Inlined at each of the walk's reads, its paths tripled the
 * states of the entry program's verification (0.2 s more at each start), and its
 * common case alone inlined (a word of the chunk read last) met a verifier bug of 6.12
 * ("verifier bug: stack slot"); the call costs the walk ~10% at an MPI start.
 */
__weak __noinline bool unwind_chunk_read(struct unwind_chunk *c, __u64 addr, __u64 *value)
{
	__u64 off;

	if (!c || !value)
		return false;
	off = addr - c->start;
	if (!c->start || off > UNWIND_CHUNK_BYTES - 8) {
		off = addr & (UNWIND_CHUNK_BYTES - 1);
		if (off > UNWIND_CHUNK_BYTES - 8)
			return false;
		if (bpf_probe_read_user(c->data, UNWIND_CHUNK_BYTES, (void *)(addr - off))) {
			c->start = 0;
			return false;
		}
		c->start = addr - off;
	}
	__builtin_memcpy(value, &c->data[off & (UNWIND_CHUNK_BYTES - 1)], sizeof(*value));
	return true;
}

struct user_unwind_state {
	__u64 pc, sp, bp; /* the frame being unwound; bp 0 when unknown */
	bool interrupted; /* pc is where a signal interrupted it, not a return address */
	__u64 *frames;
	const struct ht_process_mappings *mappings; /* NULL: frame pointers only */
	struct unwind_read_log *log;
	struct unwind_chunk *chunk; /* NULL: word by word */
	struct ht_stack *key; /* the stack as the node shares it (stacks.bpf.h); NULL: none */
	__u32 nr;
	__u32 flags;
	struct return_slots slots; /* return addresses uretprobes replaced */
};

/* The mapping holding pc: its index in pm->maps plus one, 0 when none (global: as below). */
__weak __noinline __u32 unwind_mapping_of(const struct ht_process_mappings *pm, __u64 pc)
{
	__u32 lo = 0, hi, mid;

	if (!pm || pm->nr > HT_MAX_MAPPINGS)
		return 0;
	hi = pm->nr;
	/* The last mapping starting at or before pc. */
	for (int i = 0; i < MAPPING_SEARCH_STEPS && lo < hi; i++) {
		mid = (lo + hi) / 2;
		if (pm->maps[mid & (HT_MAX_MAPPINGS - 1)].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	mid = (lo - 1) & (HT_MAX_MAPPINGS - 1);
	return pc < pm->maps[mid].end ? mid + 1 : 0;
}

static __always_inline const struct ht_mapping *
mapping_of(const struct ht_process_mappings *pm, __u64 pc)
{
	__u32 found = unwind_mapping_of(pm, pc);

	return found ? &pm->maps[(found - 1) & (HT_MAX_MAPPINGS - 1)] : NULL;
}

/* Word i of the page index whose first slot is first; false when it cannot be read. */
static __always_inline bool index_word(__u32 first, __u32 i, __u32 *word)
{
	__u32 slot = first + i / HT_INDEX_WORDS;
	const struct ht_unwind_index *index = bpf_map_lookup_elem(&unwind_rows, &slot);

	if (!index)
		return false;
	*word = index->rows_before[i & (HT_INDEX_WORDS - 1)];
	return true;
}

/*
 * Narrow [lo, hi) to the rows that may cover offset, by the file's page index: rows before
 * its page start at or before offset, rows past the next page's start after it.
 */
static __always_inline void narrow_by_page(const struct ht_mapping *m, __u64 offset, __u32 *lo,
					   __u32 *hi)
{
	__u64 page = offset >> (m->page_shift & 63);
	__u32 before, upto;

	if (!m->nr_pages || page < m->first_page || page - m->first_page >= m->nr_pages)
		return; /* past the index: the whole file is searched */
	page -= m->first_page;
	if (!index_word(m->first_index, page, &before) ||
	    !index_word(m->first_index, page + 1, &upto) || before > upto || upto > m->nr_rows)
		return;
	*lo = m->first_row + before;
	*hi = m->first_row + upto;
}

/*
 * The row covering pc in m's file: its index in unwind_rows plus one, 0 when none. A
 * function of its own (global: verified once, whatever its callers' states), where inlined
 * in each frame's step the search's two dozen iterations were verified again for each.
 */
__weak __noinline __u32 unwind_row_of(const struct ht_mapping *m, __u64 pc)
{
	__u32 lo, hi, mid;
	__u64 offset;
	const struct ht_unwind_row *row;

	if (!m || m->nr_rows == 0)
		return 0;
	offset = pc - m->start + m->file_offset;
	lo = m->first_row;
	hi = m->first_row + m->nr_rows;
	narrow_by_page(m, offset, &lo, &hi);
	/* The last row of the file starting at or before offset. */
	for (int i = 0; i < ROW_SEARCH_STEPS && lo < hi; i++) {
		mid = (lo + hi) / 2;
		row = bpf_map_lookup_elem(&unwind_rows, &mid);
		if (!row)
			return 0;
		if (row->pc <= offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->first_row)
		return 0;
	mid = lo - 1;
	row = bpf_map_lookup_elem(&unwind_rows, &mid);
	return row && row->cfa_rule != HT_CFA_NONE ? lo : 0;
}

static __always_inline const struct ht_unwind_row *row_of(const struct ht_mapping *m, __u64 pc)
{
	__u32 found = unwind_row_of(m, pc), index = found - 1;

	return found ? bpf_map_lookup_elem(&unwind_rows, &index) : NULL;
}

/* Log a read; used: the walk uses its value now (a saved rbp: only if a frame uses bp). */
static __always_inline __u32 log_read(struct user_unwind_state *st, __u64 addr, __u64 value,
				      bool used)
{
	struct unwind_read_log *log = st->log;
	/* Past the end it wraps, without a branch: such a walk is not cached anyway. */
	__u32 i = log->nr++ & (UNWIND_LOG_READS - 1);

	log->reads[i].addr = addr;
	log->reads[i].value = value;
	if (used)
		log->used |= 1ULL << i;
	return i;
}

/* Read user memory for the walk; a walk that failed a read is not cached. */
static __always_inline bool read_user(struct user_unwind_state *st, void *dst, __u32 size,
				      __u64 addr)
{
	if (bpf_probe_read_user(dst, size, (void *)addr)) {
		st->log->uncacheable = 1; /* the page may be there next time */
		return false;
	}
	return true;
}

/* The word at addr: from a chunk where the walk has one, else alone. */
static __always_inline bool read_word(struct user_unwind_state *st, __u64 addr, __u64 *value)
{
	if (st->chunk && unwind_chunk_read(st->chunk, addr, value))
		return true;
	return read_user(st, value, sizeof(*value), addr);
}

/* Every word of user memory the walk reads comes through here (and is logged). */
static __always_inline bool unwind_read(struct user_unwind_state *st, __u64 addr, __u64 *value)
{
	if (!read_word(st, addr, value))
		return false;
	log_read(st, addr, *value, true);
	return true;
}

/* The same for a saved rbp: bp now comes from this read. */
static __always_inline bool unwind_read_bp(struct user_unwind_state *st, __u64 addr, __u64 *value)
{
	if (!read_word(st, addr, value))
		return false;
	st->log->bp_source = log_read(st, addr, *value, false);
	return true;
}

/*
 * The return address read at addr, put back where a uretprobe replaced it. Such a walk is
 * not cached: the slot holds the same trampoline whoever the caller was.
 */
static __always_inline __u64 unwind_return(struct user_unwind_state *st, __u64 addr, __u64 ra)
{
	__u64 original = original_return(&st->slots, addr, ra);

	if (original != ra)
		st->log->uncacheable = 1;
	return original;
}

/* The walk is about to use bp: a replay must find the value it came from unchanged. */
static __always_inline void use_bp(struct user_unwind_state *st)
{
	struct unwind_read_log *log = st->log;
	__u32 source = log->bp_source;

	if (source == BP_INITIAL)
		log->bp_used = 1;
	else if (source < UNWIND_LOG_READS)
		log->used |= 1ULL << source;
}

/*
 * The kernel's rt_sigframe, at rsp when the handler returns into the signal trampoline:
 * offsets in its ucontext_t of the interrupted rbp, rsp and rip (uc_mcontext at 40).
 */
#define UC_RBP 120
#define UC_RSP 160
#define UC_RIP 168

/* Unwind a signal trampoline: the caller is the interrupted code, registers and all. */
static __always_inline bool step_by_sigframe(struct user_unwind_state *st)
{
	__u64 pc, sp, bp;

	if (!unwind_read(st, st->sp + UC_RIP, &pc) || !unwind_read(st, st->sp + UC_RSP, &sp) ||
	    !unwind_read_bp(st, st->sp + UC_RBP, &bp) || !pc)
		return false;
	/* No climbing check: the handler may have run on an alternate signal stack. */
	st->pc = pc;
	st->sp = sp;
	st->bp = bp;
	st->interrupted = true;
	return true;
}

/* Unwind one frame by its row. Returns false when the stack ends here. */
static __always_inline bool step_by_row(struct user_unwind_state *st,
					const struct ht_unwind_row *row)
{
	__u64 cfa, ra, bp = st->bp;

	st->interrupted = false;
	switch (row->cfa_rule) {
	case HT_CFA_RSP:
		cfa = st->sp + row->cfa_offset;
		break;
	case HT_CFA_RBP:
		use_bp(st);
		if (!st->bp)
			return false;
		cfa = st->bp + row->cfa_offset;
		break;
	case HT_CFA_PLT:
		cfa = st->sp + 8 + ((st->pc & 15) >= 11 ? 8 : 0);
		break;
	case HT_CFA_SIGNAL:
		return step_by_sigframe(st);
	default:
		st->flags |= HT_F_STACK_UNSUPPORTED;
		return false;
	}
	if (row->ra_rule == HT_REG_UNDEFINED)
		return false; /* the outermost frame: the stack is whole */
	if (row->ra_rule != HT_REG_AT_CFA) {
		st->flags |= HT_F_STACK_UNSUPPORTED;
		return false;
	}
	if (!unwind_read(st, cfa + row->ra_offset, &ra))
		return false;
	ra = unwind_return(st, cfa + row->ra_offset, ra);
	if (row->rbp_rule == HT_REG_AT_CFA) {
		if (!unwind_read_bp(st, cfa + row->rbp_offset, &bp))
			return false;
	} else if (row->rbp_rule != HT_REG_SAME) {
		bp = 0;
		st->log->bp_source = BP_NONE;
	}
	/* Stacks grow down: a caller's frame lies above its callee's. */
	if (cfa <= st->sp || !ra)
		return false;
	st->pc = ra;
	st->sp = cfa;
	st->bp = bp;
	return true;
}

/*
 * Unwind one frame by the frame-pointer chain. At frame 0, a function's first instruction,
 * the return address is at [rsp] and rbp still belongs to the caller (DESIGN.md pitfall 1).
 */
static __always_inline bool step_by_frame_pointer(struct user_unwind_state *st, bool entry)
{
	__u64 next_bp, ra;

	st->interrupted = false;
	if (entry) {
		if (!unwind_read(st, st->sp, &st->pc))
			return false;
		st->pc = unwind_return(st, st->sp, st->pc);
		st->sp += 8;
		return st->pc != 0;
	}
	use_bp(st);
	if (!st->bp || (st->bp & 7) || st->bp < st->sp)
		return false;
	/* The frame record: the caller's rbp, then the return address. */
	if (!read_word(st, st->bp, &next_bp) || !read_word(st, st->bp + 8, &ra))
		return false;
	st->log->bp_source = log_read(st, st->bp, next_bp, false);
	log_read(st, st->bp + 8, ra, true);
	if (!ra)
		return false;
	st->pc = unwind_return(st, st->bp + 8, ra);
	st->sp = st->bp + 16;
	/* A chain that does not climb is not a chain: the next step checks bp >= sp. */
	st->bp = next_bp;
	return true;
}

/*
 * Frame number index as the node knows it: its file and offset (include/heaptap.h). A
 * frame in no numbered file makes the stack its process's (key pid 1 until the walk ends).
 */
static __always_inline void key_frame(struct user_unwind_state *st, __u64 index,
				      const struct ht_mapping *m)
{
	__u64 offset;

	if (!st->key || index >= HT_STORED_FRAMES)
		return;
	offset = m ? st->pc - m->start + m->file_offset : 0;
	if (m && m->file_id && m->file_id <= HT_MAX_FILE_ID &&
	    offset < (1ULL << HT_FRAME_OFFSET_BITS))
		st->key->frames[index] = ht_frame_key(m->file_id, offset);
	else
		st->key->pid = 1;
}

/*
 * One frame per bpf_loop() step. The frame number is the loop index, not a counter kept
 * in the state: the verifier then sees one step, not 127 different ones.
 */
static long unwind_step(__u64 index, void *ctx)
{
	struct user_unwind_state *st = ctx;
	const struct ht_unwind_row *row = NULL;
	const struct ht_mapping *m = NULL;
	__u64 pc;

	if (index >= HT_MAX_FRAMES) {
		st->flags |= HT_F_STACK_TRUNC;
		return 1;
	}
	st->frames[index] = st->pc;
	st->nr = index + 1;
	/*
	 * A return address follows its call, which may be a function's last instruction; an
	 * interrupted pc is the instruction itself.
	 */
	pc = index && !st->interrupted ? st->pc - 1 : st->pc;
	if (st->mappings && (m = mapping_of(st->mappings, pc)))
		row = row_of(m, pc);
	key_frame(st, index, m);
	if (row)
		return step_by_row(st, row) ? 0 : 1;
	return step_by_frame_pointer(st, index == 0) ? 0 : 1;
}

/*
 * skip: how far past its function's entry the probe sits. The instructions skipped wrote
 * none of rsp, rbp and the arguments, so the registers are the entry's and so is its
 * unwind row: the walk starts from the entry's address. recorded: the return slots of the
 * thread's probed calls in flight (its in-flight record's call and api; NULL if none).
 * log: where the walk's reads go (stack_cache.bpf.h). chunk: the thread's own room, or NULL.
 * key: where the frames go as the node shares them (its pid 0, or 1 if they cannot be
 * shared; its nr is the caller's to set), or NULL.
 */
static __always_inline __u32 unwind_user_stack_logged(struct pt_regs *regs, __u32 skip,
						      __u32 pid,
						      const struct return_slot *recorded,
						      __u64 *frames, __u32 *flags,
						      struct unwind_read_log *log,
						      struct unwind_chunk *chunk,
						      struct ht_stack *key)
{
	struct user_unwind_state st = {
		.pc = PT_REGS_IP(regs) - skip,
		.sp = PT_REGS_SP(regs),
		.bp = PT_REGS_FP(regs),
		.frames = frames,
		.mappings = bpf_map_lookup_elem(&unwind_processes, &pid),
		.log = log,
		.chunk = chunk,
		.key = key,
	};

	if (key)
		key->pid = 0;
	if (chunk)
		chunk->start = 0; /* the thread's stack has moved on since */

	/* One more step than frames: the last one finds the walk was cut short. */
	return_slots__load(&st.slots, recorded);
	/* Kept in the log, not in st: the verifier would follow each walk once per value. */
	log->bp_source = BP_INITIAL;
	log->bp_used = 0;
	log->used = 0;
	bpf_loop(HT_MAX_FRAMES + 1, unwind_step, &st, 0);
	*flags |= st.flags;
	return st.nr;
}

/* The same, for a walk no cache will replay. */
static __always_inline __u32 unwind_user_stack(struct pt_regs *regs, __u32 skip, __u32 pid,
					       const struct return_slot *recorded, __u64 *frames,
					       __u32 *flags)
{
	__u32 zero = 0;
	struct unwind_read_log *log = bpf_map_lookup_elem(&unwind_scratch_log, &zero);

	if (!log)
		return 0;
	log->nr = 0;
	/* No room of the thread's own: per-CPU room may be another task's meanwhile. */
	return unwind_user_stack_logged(regs, skip, pid, recorded, frames, flags, log, NULL,
					NULL);
}

#endif
