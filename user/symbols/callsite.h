/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Which symbol a call instruction called. glibc gives memalign and aligned_alloc one
 * address, so the probe alone cannot tell them apart; the caller's call instruction can:
 * it goes through a PLT stub or a GOT slot whose relocation names the symbol.
 */
#ifndef HEAPTAP_CALLSITE_H
#define HEAPTAP_CALLSITE_H

#include <stdbool.h>
#include <stdint.h>

struct callsite;

/* Parse the relocations, PLT and GOT of the ELF file at path. NULL with errno on failure. */
struct callsite *callsite__load(const char *path);
/*
 * The same, keeping at most max_bytes (callsite__bytes): NULL with errno EFBIG when the
 * file's relocations would take more, known from its section headers before they are read.
 */
struct callsite *callsite__load_within(const char *path, size_t max_bytes);
size_t callsite__bytes(const struct callsite *cs);
void callsite__free(struct callsite *cs);

/*
 * The name of the function called by the call instruction that ends just before the
 * return address ret_offset (a file offset in this file), or NULL when it cannot be told
 * (an indirect call through a register, a direct call to a local function...).
 */
const char *callsite__callee(const struct callsite *cs, uint64_t ret_offset);

/*
 * If the instruction before ret_offset is a direct call (call rel32, not through a PLT
 * stub or GOT slot), set *target to the file offset it calls and return true.
 */
bool callsite__direct_target(const struct callsite *cs, uint64_t ret_offset, uint64_t *target);

#endif
