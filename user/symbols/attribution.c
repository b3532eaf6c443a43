// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <string.h>
#include "attribution.h"

/*
 * Where the C runtime starts a process or a thread: below them is nothing of the program.
 * ld.so's _dl_start_user runs the libraries' constructors (through _dl_init) before main;
 * glibc's __start_context is where a makecontext() coroutine begins.
 */
static const char *const startup_symbols[] = {
	"_start",	   "__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main",
	"start_thread",	   "clone",		"clone3",		  "__clone",
	"__clone3",	   "__clone_internal",	"_dl_start_user",	  "__start_context",
};

bool is_startup_symbol(const char *symbol)
{
	/* Each frame of each new stack asks: most names start with none of their letters. */
	if (!symbol || (symbol[0] != '_' && symbol[0] != 's' && symbol[0] != 'c'))
		return false;
	for (size_t i = 0; i < sizeof(startup_symbols) / sizeof(startup_symbols[0]); i++) {
		if (!strcmp(symbol, startup_symbols[i]))
			return true;
	}
	return false;
}

struct attribution attribute(const struct frame *frames, size_t nr, enum attribution_rule rule)
{
	struct attribution a = { .frame = 0, .complete = false };
	size_t bottom = nr; /* frames [1, bottom) belong to the program and its libraries */

	for (size_t i = 1; i < nr; i++) {
		if (is_startup_symbol(frames[i].symbol)) {
			bottom = i;
			a.complete = true;
			break;
		}
	}

	if (rule == ATTRIBUTE_CALLER) {
		for (size_t i = 1; i < bottom; i++) {
			if (!frames[i].in_allocator && !frames[i].entry_point) {
				a.frame = i;
				break;
			}
		}
		return a;
	}

	/*
	 * Entry rule: from the outermost frame inwards, the first one outside the program; an
	 * entry point of the allocator there (the program's own operator new) is the program
	 * calling the allocator.
	 */
	for (size_t i = bottom; i-- > 1;) {
		if (!frames[i].in_executable) {
			a.frame = frames[i].entry_point ? 0 : i;
			break;
		}
	}
	return a;
}

const char *attribution_rule_name(enum attribution_rule rule)
{
	return rule == ATTRIBUTE_CALLER ? "caller" : "entry";
}

int attribution_rule_parse(const char *name, enum attribution_rule *rule)
{
	if (!strcmp(name, "entry"))
		*rule = ATTRIBUTE_ENTRY;
	else if (!strcmp(name, "caller"))
		*rule = ATTRIBUTE_CALLER;
	else
		return -EINVAL;
	return 0;
}
