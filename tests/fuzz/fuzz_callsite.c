// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Call-site decoding: a file's relocations, PLT stubs and GOT slots, then the call
 * instructions before return addresses, as the symbolizer asks for them.
 */
#include <string.h>
#include "callsite.h"
#include "fuzz_file.h"

/* Return addresses after what looks like a call: call rel32 (e8) or call *disp32(%rip). */
static void decode(const struct callsite *cs, const uint8_t *data, size_t size)
{
	size_t asked = 0;

	for (size_t i = 0; i + 1 < size && asked < 256; i++) {
		uint64_t target;
		const char *name;

		if (data[i] == 0xe8) {
			asked++;
			name = callsite__callee(cs, i + 5);
			if (name)
				(void)strlen(name);
			callsite__direct_target(cs, i + 5, &target);
		} else if (data[i] == 0xff && data[i + 1] == 0x15) {
			asked++;
			name = callsite__callee(cs, i + 6);
			if (name)
				(void)strlen(name);
		}
	}
	/* And offsets no instruction ends at: the file's edges and beyond. */
	callsite__callee(cs, 0);
	callsite__callee(cs, size);
	callsite__callee(cs, UINT64_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct callsite *cs = callsite__load(fuzz_file(data, size));

	if (cs)
		decode(cs, data, size);
	callsite__free(cs);
	return 0;
}
