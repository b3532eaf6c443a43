// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Probe sites, decoded with Zydis: it lists every operand an instruction touches, the
 * hidden ones too (mul's rdx, push's stack slot, the flags), with whether it is read or
 * written, which is exactly what deciding "writes nothing the programs read" needs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <Zydis/Zydis.h>
#include "elfsyms.h"
#include "probe_site.h"
#include "symcache.h"

/* Bytes decoded for heaptap sites when the function's size is unknown. */
#define DISPLAY_BYTES 64

struct decoder {
	ZydisDecoder dec;
	ZydisFormatter fmt;
};

struct insn {
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
};

static void decoder_init(struct decoder *d)
{
	ZydisDecoderInit(&d->dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisFormatterInit(&d->fmt, ZYDIS_FORMATTER_STYLE_ATT);
	/* As objdump prints them: 0x141b46(%rip), jz 0x98fb8. */
	ZydisFormatterSetProperty(&d->fmt, ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE);
	ZydisFormatterSetProperty(&d->fmt, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
				  ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&d->fmt, ZYDIS_FORMATTER_PROP_DISP_PADDING,
				  ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&d->fmt, ZYDIS_FORMATTER_PROP_IMM_PADDING,
				  ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&d->fmt, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE);
}

static bool decode(const struct decoder *d, const uint8_t *code, size_t len, struct insn *i)
{
	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->dec, code, len, &i->in, i->ops));
}

/*
 * arch/x86/kernel/uprobes.c, from 4.x to 6.18: branch_setup_xol_ops() emulates jmp rel8
 * (eb), jmp rel32 (e9), call rel32 (e8), jcc rel8 (70-7f) and rel32 (0f 80-8f), none
 * with a 66 prefix, and nops; push_setup_xol_ops() emulates push of a 64-bit register,
 * alone (50-57) or with REX 41 (r8-r15). Which nops are emulated changed over time (6.x
 * recognises 0f 1f and prefixed forms through insn_is_nop()): only the one-byte 90 is
 * counted, which every version emulates. No prefix is accepted on any of them.
 */
bool probe_site__emulated(const uint8_t *c, size_t len)
{
	if (len >= 1 && ((c[0] >= 0x50 && c[0] <= 0x57) || c[0] == 0x90))
		return true;
	if (len >= 2 && c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57)
		return true;
	if (len >= 2 && (c[0] == 0xeb || (c[0] >= 0x70 && c[0] <= 0x7f)))
		return true;
	if (len >= 5 && (c[0] == 0xe9 || c[0] == 0xe8))
		return true;
	return len >= 6 && c[0] == 0x0f && c[1] >= 0x80 && c[1] <= 0x8f;
}

/*
 * Registers a skipped instruction may write: none that heaptap's programs read at a
 * probe. They read the arguments (rdi, rsi, rdx; rcx, r8, r9 are arguments too, kept out
 * for any program that reads more), and the unwinder reads rsp, rbp and the ip.
 */
static bool writable(ZydisRegister reg)
{
	if (reg == ZYDIS_REGISTER_FLAGS || reg == ZYDIS_REGISTER_EFLAGS ||
	    reg == ZYDIS_REGISTER_RFLAGS)
		return true;
	switch (ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg)) {
	case ZYDIS_REGISTER_RAX:
	case ZYDIS_REGISTER_RBX:
	case ZYDIS_REGISTER_R10:
	case ZYDIS_REGISTER_R11:
	case ZYDIS_REGISTER_R12:
	case ZYDIS_REGISTER_R13:
	case ZYDIS_REGISTER_R14:
	case ZYDIS_REGISTER_R15:
		return true;
	default:
		return false;
	}
}

static bool branches(const ZydisDecodedInstruction *in)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_SYSTEM:
		return true;
	default:
		return false;
	}
}

/* May the instruction be skipped? If not, out says why. */
static bool skippable(const struct insn *i, struct probe_site *out)
{
	if (branches(&i->in) || (i->in.attributes & ZYDIS_ATTRIB_IS_PRIVILEGED)) {
		out->rule = SITE_ENTRY_PREFIX_BRANCHES;
		return false;
	}
	for (int k = 0; k < i->in.operand_count; k++) {
		const ZydisDecodedOperand *op = &i->ops[k];

		if (!(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER && writable(op->reg.value))
			continue;
		out->rule = SITE_ENTRY_PREFIX_WRITES;
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER)
			snprintf(out->what, sizeof(out->what), "%%%s",
				 ZydisRegisterGetString(op->reg.value));
		else
			snprintf(out->what, sizeof(out->what), "memory");
		return false;
	}
	return true;
}

/* Keep the first instructions, as text, for heaptap sites. */
static void show(const struct decoder *d, const uint8_t *code, size_t len, uint64_t entry,
		 struct probe_site *out)
{
	size_t off = 0;
	struct insn i;

	while (out->nr_insns < PROBE_SITE_SHOWN && off < len &&
	       decode(d, code + off, len - off, &i)) {
		struct probe_insn *p = &out->insns[out->nr_insns++];

		p->offset = entry + off;
		p->len = i.in.length;
		p->emulated = probe_site__emulated(code + off, i.in.length);
		if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&d->fmt, &i.in, i.ops,
								  i.in.operand_count_visible,
								  p->text, sizeof(p->text),
								  entry + off, NULL)))
			snprintf(p->text, sizeof(p->text), "?");
		off += i.in.length;
	}
}

/* Where the prefix ends: the offset of the first emulated instruction, or false. */
static bool find_site(const struct decoder *d, const uint8_t *code, size_t len,
		      struct probe_site *out, size_t *site)
{
	size_t off = 0;
	struct insn i;

	for (int skipped = 0;; skipped++) {
		if (off >= len || !decode(d, code + off, len - off, &i)) {
			out->rule = SITE_ENTRY_UNREADABLE;
			out->culprit = out->entry + off;
			return false;
		}
		if (probe_site__emulated(code + off, i.in.length)) {
			*site = off;
			return true;
		}
		if (!skippable(&i, out)) {
			out->culprit = out->entry + off;
			return false;
		}
		off += i.in.length;
		if (skipped + 1 > PROBE_SITE_MAX_SKIP || off > PROBE_SITE_MAX_BYTES) {
			out->rule = SITE_ENTRY_TOO_FAR;
			out->culprit = out->entry;
			return false;
		}
	}
}

/*
 * Could control reach (entry, entry + site] other than by falling through from the entry?
 * Every direct branch of the function is checked; an indirect jump could land anywhere.
 */
static bool reached_otherwise(const struct decoder *d, const uint8_t *code, size_t size,
			      size_t site, struct probe_site *out)
{
	size_t off = 0;
	struct insn i;

	while (off < size) {
		if (!decode(d, code + off, size - off, &i)) {
			out->rule = SITE_ENTRY_UNREADABLE;
			out->culprit = out->entry + off;
			return true;
		}
		for (int k = 0; k < i.in.operand_count_visible; k++) {
			const ZydisDecodedOperand *op = &i.ops[k];
			int64_t target;

			if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && op->imm.is_relative) {
				target = (int64_t)(off + i.in.length) + op->imm.value.s;
				if (target > 0 && (uint64_t)target <= site) {
					out->rule = SITE_ENTRY_BRANCH_INTO;
					out->culprit = out->entry + off;
					out->target = out->entry + target;
					return true;
				}
			} else if (i.in.meta.category == ZYDIS_CATEGORY_UNCOND_BR) {
				out->rule = SITE_ENTRY_INDIRECT_JUMP;
				out->culprit = out->entry + off;
				return true;
			}
		}
		off += i.in.length;
	}
	return false;
}

void probe_site__choose(const uint8_t *code, size_t len, uint64_t size, uint64_t entry,
			struct probe_site *out)
{
	struct decoder d;
	size_t site;

	memset(out, 0, sizeof(*out));
	out->entry = out->site = out->culprit = entry;
	decoder_init(&d);
	if (size && size < len)
		len = size; /* the next function's bytes are not this one's */
	show(&d, code, len, entry, out);
	if (!find_site(&d, code, len, out, &site))
		return;
	if (site == 0) {
		out->rule = SITE_ENTRY_EMULATED;
		return;
	}
	if (!size || size > len) {
		out->rule = SITE_ENTRY_NO_EXTENT;
		return;
	}
	if (reached_otherwise(&d, code, size, site, out))
		return;
	out->rule = SITE_MOVED;
	out->site = out->culprit = entry + site;
}

void probe_site__of_file(int fd, uint64_t entry, uint64_t size, struct probe_site *out)
{
	size_t want = size && size <= PROBE_SITE_MAX_CODE ? size : DISPLAY_BYTES;
	uint8_t *code = malloc(want);
	ssize_t got = code ? pread(fd, code, want, entry) : -1;

	if (got <= 0) {
		memset(out, 0, sizeof(*out));
		out->entry = out->site = out->culprit = entry;
		out->rule = SITE_ENTRY_UNREADABLE;
		free(code);
		return;
	}
	/* A short read leaves the extent unchecked: NO_EXTENT, unless the entry will do. */
	probe_site__choose(code, got, (size_t)got == size ? size : 0, entry, out);
	free(code);
}

uint64_t probe_site__place(const struct object_file *obj, uint64_t entry)
{
	const char *at = getenv("HEAPTAP_PROBE_AT");
	struct probe_site s;

	if (!entry || !obj->syms || (at && !strcmp(at, "entry")))
		return entry;
	probe_site__of_file(obj->fd, entry, elfsyms__size_at(obj->syms, entry), &s);
	return s.site;
}

void probe_site__explain(const struct probe_site *s, char *buf, size_t size)
{
	unsigned long long at = s->culprit - s->entry;

	switch (s->rule) {
	case SITE_ENTRY_EMULATED:
		snprintf(buf, size, "entry: the kernel emulates its first instruction");
		break;
	case SITE_MOVED:
		snprintf(buf, size, "+%llu: the instructions before it write only flags or "
			 "registers the probe does not read, no branch lands among them, and "
			 "the kernel emulates this one", at);
		break;
	case SITE_ENTRY_NO_EXTENT:
		snprintf(buf, size, "entry: the symbol's size is unknown, so branches into "
			 "the instructions before +%llu cannot be ruled out",
			 (unsigned long long)(s->nr_insns ? s->insns[s->nr_insns - 1].offset -
								 s->entry : 0));
		break;
	case SITE_ENTRY_UNREADABLE:
		snprintf(buf, size, "entry: cannot read or decode the instruction at +%llu", at);
		break;
	case SITE_ENTRY_PREFIX_WRITES:
		snprintf(buf, size, "entry: the instruction at +%llu writes %s before any "
			 "emulated instruction", at, s->what);
		break;
	case SITE_ENTRY_PREFIX_BRANCHES:
		snprintf(buf, size, "entry: the instruction at +%llu branches or traps before "
			 "any emulated instruction", at);
		break;
	case SITE_ENTRY_TOO_FAR:
		snprintf(buf, size, "entry: no emulated instruction within %d instructions "
			 "and %d bytes", PROBE_SITE_MAX_SKIP, PROBE_SITE_MAX_BYTES);
		break;
	case SITE_ENTRY_INDIRECT_JUMP:
		snprintf(buf, size, "entry: the function jumps indirectly at +%llu (to places "
			 "unknown)", at);
		break;
	case SITE_ENTRY_BRANCH_INTO:
		snprintf(buf, size, "entry: the branch at +%llu lands on +%llu, among the "
			 "instructions a later site would skip", at,
			 (unsigned long long)(s->target - s->entry));
		break;
	}
}
