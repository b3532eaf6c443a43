/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Where a function's probe goes. x86 uprobes emulate a few instructions in the kernel and
 * single-step every other one out of line, at the price of a second exception (DESIGN.md
 * pitfall 16). When a function does not begin with an emulated instruction, its probe may
 * move past a short prefix that changes nothing heaptap's programs read, onto the first
 * emulated instruction: the programs then see the registers and stack of the entry.
 *
 * The rule (tools/docs/how-it-works.md, "Where the probes sit"): the site is the first instruction the kernel
 * emulates (push of a register, jmp/jcc/call with a relative target, a one-byte nop) when
 *   1. every instruction before it writes only flags, rax, rbx or r10-r15 (never an
 *      argument register, rsp or rbp), writes no memory and does not branch;
 *   2. no direct branch in the function (its extent from the symbol size) targets a
 *      skipped instruction or the site, and the function has no indirect jump;
 *   3. it lies at most PROBE_SITE_MAX_SKIP instructions and PROBE_SITE_MAX_BYTES bytes
 *      from the entry.
 * Otherwise the probe stays on the entry, as every tracer places it.
 */
#ifndef HEAPTAP_PROBE_SITE_H
#define HEAPTAP_PROBE_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct object_file;

#define PROBE_SITE_MAX_SKIP 4	/* instructions skipped at most */
#define PROBE_SITE_MAX_BYTES 16 /* bytes skipped at most */
#define PROBE_SITE_MAX_CODE (1 << 20) /* a longer function is probed at its entry */
#define PROBE_SITE_SHOWN 6	/* first instructions kept for heaptap sites */

enum probe_site_rule {
	SITE_ENTRY_EMULATED,	  /* the first instruction is emulated: the entry it is */
	SITE_MOVED,		  /* a harmless prefix skipped, onto an emulated instruction */
	SITE_ENTRY_NO_EXTENT,	  /* the symbol has no size: branches cannot be checked */
	SITE_ENTRY_UNREADABLE,	  /* the bytes could not be read or decoded */
	SITE_ENTRY_PREFIX_WRITES, /* an instruction before any emulated one writes what
				     the programs read (or memory) */
	SITE_ENTRY_PREFIX_BRANCHES, /* ... or branches */
	SITE_ENTRY_TOO_FAR,	  /* no emulated instruction within the distance */
	SITE_ENTRY_INDIRECT_JUMP, /* the function jumps through a register or memory */
	SITE_ENTRY_BRANCH_INTO,	  /* a branch of the function lands in the skipped prefix */
};

/* One decoded instruction, for heaptap sites. */
struct probe_insn {
	uint64_t offset;
	uint8_t len;
	bool emulated; /* by the kernel, if probed */
	char text[64]; /* AT&T syntax, as objdump prints it */
};

struct probe_site {
	uint64_t entry; /* file offset of the function's first instruction */
	uint64_t site;	/* file offset of the probe: entry, or past the skipped prefix */
	enum probe_site_rule rule;
	/*
	 * What decided it: the offending instruction (PREFIX_*, INDIRECT_JUMP), the branch
	 * landing in the prefix (BRANCH_INTO), else the site.
	 */
	uint64_t culprit;
	uint64_t target; /* BRANCH_INTO: where that branch lands */
	char what[48];	/* the register or the reason, for PREFIX_WRITES ("rdx", "memory") */
	struct probe_insn insns[PROBE_SITE_SHOWN];
	size_t nr_insns;
};

/*
 * Choose the site of the function of size bytes (0: unknown) at file offset entry, whose
 * first len bytes are code (len >= size when the size is known). Never fails: the entry
 * is the answer when in doubt.
 */
void probe_site__choose(const uint8_t *code, size_t len, uint64_t size, uint64_t entry,
			struct probe_site *out);

/* The same for the function of size bytes at file offset entry of the file open as fd. */
void probe_site__of_file(int fd, uint64_t entry, uint64_t size, struct probe_site *out);

/*
 * The offset to probe for the function at file offset entry of obj (0: none). Every
 * probe heaptap places goes through here. HEAPTAP_PROBE_AT=entry in the environment keeps
 * every probe on its entry (to measure what the sites save).
 */
uint64_t probe_site__place(const struct object_file *obj, uint64_t entry);

/* Does the kernel emulate the instruction at code (len bytes at most) when probed? */
bool probe_site__emulated(const uint8_t *code, size_t len);

/* One line saying why the site is where it is. */
void probe_site__explain(const struct probe_site *s, char *buf, size_t size);

#endif
