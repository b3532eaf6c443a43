// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <dwarf.h>
#include <errno.h>
#include "cfi_program.h"

#define DWARF_RBP 6
#define DWARF_RSP 7
#define MAX_REMEMBERED 16 /* DW_CFA_remember_state depth; compilers use 1 */

struct op_pattern {
	uint8_t atom;
	bool has_operand; /* an SLEB128, as the breg ops take */
	int64_t operand;
	bool any_operand;
};

static bool expression_is(struct cfi_cursor c, const struct op_pattern *pattern, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int64_t v;

		if (c.p >= c.end || *c.p++ != pattern[i].atom)
			return false;
		if (pattern[i].has_operand &&
		    (!cfi_read_sleb(&c, &v) ||
		     (!pattern[i].any_operand && v != pattern[i].operand)))
			return false;
	}
	return c.p == c.end;
}

/* The expression every x86-64 PLT stub's FDE carries (binutils' lazy-binding PLT). */
static const struct op_pattern plt_expression[] = {
	{ DW_OP_breg7, true, 8 }, { DW_OP_breg16, true, 0, true }, { DW_OP_lit15 }, { DW_OP_and },
	{ DW_OP_lit11 }, { DW_OP_ge }, { DW_OP_lit3 }, { DW_OP_shl }, { DW_OP_plus },
};

/*
 * A signal frame (the 'S' augmentation) whose CFA is the rsp saved in the ucontext_t the
 * kernel put at rsp: glibc's __restore_rt (DW_OP_breg7 160, DW_OP_deref).
 */
static const struct op_pattern sigreturn_expression[] = {
	{ DW_OP_breg7, true, 160 },
	{ DW_OP_deref },
};

static void reg_rule_of(const struct cfi_reg_rule *in, uint8_t *rule, int16_t *offset)
{
	*rule = in->rule;
	*offset = (int16_t)in->offset;
	if (in->rule == HT_REG_AT_CFA && in->offset != *offset)
		*rule = HT_REG_UNSUPPORTED; /* no stack frame is that large */
}

static struct ht_unwind_row row_of(const struct cfi_rules *r, bool signal_frame)
{
	struct ht_unwind_row row = { .cfa_rule = HT_CFA_UNSUPPORTED };

	if (signal_frame) {
		if (r->cfa_is_expression &&
		    expression_is(r->cfa_expression, sigreturn_expression,
				  sizeof(sigreturn_expression) / sizeof(sigreturn_expression[0])))
			row.cfa_rule = HT_CFA_SIGNAL;
		return row; /* its registers are all in the ucontext_t */
	}
	if (r->cfa_is_expression) {
		if (expression_is(r->cfa_expression, plt_expression,
				  sizeof(plt_expression) / sizeof(plt_expression[0])))
			row.cfa_rule = HT_CFA_PLT;
	} else if ((r->cfa_reg == DWARF_RSP || r->cfa_reg == DWARF_RBP) &&
		   r->cfa_offset == (int32_t)r->cfa_offset) {
		row.cfa_rule = r->cfa_reg == DWARF_RSP ? HT_CFA_RSP : HT_CFA_RBP;
		row.cfa_offset = (int32_t)r->cfa_offset;
	}
	reg_rule_of(&r->rbp, &row.rbp_rule, &row.rbp_offset);
	reg_rule_of(&r->ra, &row.ra_rule, &row.ra_offset);
	return row;
}

static bool set_reg(const struct cfi_cie *cie, struct cfi_rules *r, uint64_t reg, uint8_t rule,
		    int64_t offset)
{
	if (reg == DWARF_RBP)
		r->rbp = (struct cfi_reg_rule){ rule, offset };
	if (reg == cie->ra_reg)
		r->ra = (struct cfi_reg_rule){ rule, offset };
	return true;
}

/* "Saved at CFA + n * data alignment", n read as the opcode says. */
static bool set_saved(const struct cfi_cie *cie, struct cfi_rules *r, uint64_t reg, int64_t n)
{
	int64_t offset;

	if (__builtin_mul_overflow(n, cie->data_align, &offset))
		return false;
	return set_reg(cie, r, reg, HT_REG_AT_CFA, offset);
}

struct program {
	const struct cfi *cfi;
	const struct cfi_cie *cie;
	const struct cfi_rules *initial; /* what DW_CFA_restore restores */
	struct cfi_rules r;
	struct cfi_rules stack[MAX_REMEMBERED];
	size_t depth;
	uint64_t loc, end; /* rows are given for [loc, end) only */
	cfi_row_fn fn;	   /* NULL while running a CIE's initial instructions */
	void *ctx;
};

/* The rules so far hold up to new_loc: one row for them, then move on. */
static bool advance(struct program *pr, uint64_t new_loc, int *err)
{
	if (!pr->fn || new_loc < pr->loc)
		return false; /* a CIE has no addresses; rows never go backwards */
	if (new_loc > pr->end)
		new_loc = pr->end;
	if (new_loc > pr->loc)
		*err = pr->fn(pr->ctx, pr->loc, row_of(&pr->r, pr->cie->signal_frame));
	pr->loc = new_loc;
	return true;
}

static bool advance_by(struct program *pr, uint64_t delta, int *err)
{
	uint64_t bytes, to;

	if (__builtin_mul_overflow(delta, pr->cie->code_align, &bytes) ||
	    __builtin_add_overflow(pr->loc, bytes, &to))
		to = UINT64_MAX;
	return advance(pr, to, err);
}

/* The rule one register had after the CIE's initial instructions. */
static bool restore(struct program *pr, uint64_t reg)
{
	if (reg == DWARF_RBP)
		pr->r.rbp = pr->initial->rbp;
	if (reg == pr->cie->ra_reg)
		pr->r.ra = pr->initial->ra;
	return true;
}

/* One instruction. False when it is malformed or not one heaptap knows. */
static bool step(struct program *pr, struct cfi_cursor *c, int *err)
{
	const struct cfi_cie *cie = pr->cie;
	struct cfi_rules *r = &pr->r;
	uint64_t reg, u, len;
	int64_t s;
	uint8_t op = *c->p++;

	switch (op & 0xc0) {
	case DW_CFA_advance_loc:
		return advance_by(pr, op & 0x3f, err);
	case DW_CFA_offset:
		return cfi_read_uleb(c, &u) && set_saved(cie, r, op & 0x3f, (int64_t)u);
	case DW_CFA_restore:
		return restore(pr, op & 0x3f);
	}
	switch (op) {
	case DW_CFA_nop:
		return true;
	case DW_CFA_set_loc:
		return cfi_read_pointer(pr->cfi, c, cie->fde_encoding, &u) && advance(pr, u, err);
	case DW_CFA_advance_loc1:
	case DW_CFA_advance_loc2:
	case DW_CFA_advance_loc4:
		len = op == DW_CFA_advance_loc1 ? 1 : op == DW_CFA_advance_loc2 ? 2 : 4;
		return cfi_read_fixed(c, len, false, &u) && advance_by(pr, u, err);
	case DW_CFA_offset_extended:
		return cfi_read_uleb(c, &reg) && cfi_read_uleb(c, &u) &&
		       set_saved(cie, r, reg, (int64_t)u);
	case DW_CFA_offset_extended_sf:
		return cfi_read_uleb(c, &reg) && cfi_read_sleb(c, &s) && set_saved(cie, r, reg, s);
	case DW_CFA_GNU_negative_offset_extended:
		return cfi_read_uleb(c, &reg) && cfi_read_uleb(c, &u) &&
		       set_saved(cie, r, reg, -(int64_t)u);
	case DW_CFA_restore_extended:
		return cfi_read_uleb(c, &reg) && restore(pr, reg);
	case DW_CFA_undefined:
		return cfi_read_uleb(c, &reg) && set_reg(cie, r, reg, HT_REG_UNDEFINED, 0);
	case DW_CFA_same_value:
		return cfi_read_uleb(c, &reg) && set_reg(cie, r, reg, HT_REG_SAME, 0);
	case DW_CFA_register:
	case DW_CFA_val_offset:
		return cfi_read_uleb(c, &reg) && cfi_read_uleb(c, &u) &&
		       set_reg(cie, r, reg, HT_REG_UNSUPPORTED, 0);
	case DW_CFA_val_offset_sf:
		return cfi_read_uleb(c, &reg) && cfi_read_sleb(c, &s) &&
		       set_reg(cie, r, reg, HT_REG_UNSUPPORTED, 0);
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		if (!cfi_read_uleb(c, &reg) || !cfi_read_uleb(c, &len) ||
		    len > (uint64_t)(c->end - c->p))
			return false;
		c->p += len;
		return set_reg(cie, r, reg, HT_REG_UNSUPPORTED, 0);
	case DW_CFA_remember_state:
		if (pr->depth == MAX_REMEMBERED)
			return false;
		pr->stack[pr->depth++] = *r;
		return true;
	case DW_CFA_restore_state:
		if (pr->depth == 0)
			return false;
		*r = pr->stack[--pr->depth];
		return true;
	case DW_CFA_def_cfa:
		if (!cfi_read_uleb(c, &reg) || !cfi_read_uleb(c, &u))
			return false;
		*r = (struct cfi_rules){ .cfa_reg = reg, .cfa_offset = (int64_t)u, .rbp = r->rbp,
				     .ra = r->ra };
		return true;
	case DW_CFA_def_cfa_sf:
		if (!cfi_read_uleb(c, &reg) || !cfi_read_sleb(c, &s) ||
		    __builtin_mul_overflow(s, cie->data_align, &s))
			return false;
		*r = (struct cfi_rules){ .cfa_reg = reg, .cfa_offset = s, .rbp = r->rbp,
					 .ra = r->ra };
		return true;
	/*
	 * After an expression, these go back to register + offset with what the expression
	 * left untouched, as libgcc's unwinder does (GCC emits exactly that after a realigned
	 * stack).
	 */
	case DW_CFA_def_cfa_register:
		if (!cfi_read_uleb(c, &reg))
			return false;
		r->cfa_reg = reg;
		r->cfa_is_expression = false;
		return true;
	case DW_CFA_def_cfa_offset:
		if (!cfi_read_uleb(c, &u))
			return false;
		r->cfa_offset = (int64_t)u;
		r->cfa_is_expression = false;
		return true;
	case DW_CFA_def_cfa_offset_sf:
		if (!cfi_read_sleb(c, &s) ||
		    __builtin_mul_overflow(s, cie->data_align, &r->cfa_offset))
			return false;
		r->cfa_is_expression = false;
		return true;
	case DW_CFA_def_cfa_expression:
		if (!cfi_read_uleb(c, &len) || len > (uint64_t)(c->end - c->p))
			return false;
		r->cfa_is_expression = true;
		r->cfa_expression = (struct cfi_cursor){ c->p, c->p + len };
		c->p += len;
		return true;
	case DW_CFA_GNU_args_size:
		return cfi_read_uleb(c, &u);
	default:
		return false;
	}
}

/*
 * Run a program from its start rules. In an FDE, rows are emitted as it goes; a malformed
 * instruction ends them with a row saying no rule holds from there on.
 */
static int run(struct program *pr, struct cfi_cursor c)
{
	int err = 0;

	while (c.p < c.end && !err && pr->loc < pr->end) {
		if (!step(pr, &c, &err)) {
			if (!pr->fn)
				return -EINVAL;
			err = pr->fn(pr->ctx, pr->loc,
				     (struct ht_unwind_row){ .cfa_rule = HT_CFA_NONE });
			return err ? err : 1;
		}
	}
	if (!err && pr->fn && pr->loc < pr->end)
		err = pr->fn(pr->ctx, pr->loc, row_of(&pr->r, pr->cie->signal_frame));
	return err;
}


bool cfi_program__initial(const struct cfi *cfi, const struct cfi_cie *cie, struct cfi_rules *out)
{
	struct program pr = { .cfi = cfi, .cie = cie, .initial = out, .end = UINT64_MAX };

	*out = (struct cfi_rules){ .cfa_reg = DWARF_RSP, .cfa_offset = 8,
				   .ra = { HT_REG_AT_CFA, -8 } };
	pr.r = *out;
	if (run(&pr, cie->program))
		return false;
	*out = pr.r;
	return true;
}

int cfi_program__rows(const struct cfi *cfi, const struct cfi_cie *cie,
		      const struct cfi_rules *initial, const struct cfi_fde *fde, uint64_t end,
		      cfi_row_fn fn, void *ctx)
{
	struct program pr = { .cfi = cfi, .cie = cie, .initial = initial, .r = *initial,
			      .loc = fde->start, .end = end, .fn = fn, .ctx = ctx };

	return run(&pr, fde->program);
}
