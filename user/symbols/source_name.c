// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "source_name.h"

/*
 * What GCC (ipa-cp, ipa-sra, ipa-split, hot/cold partitioning, LTO) and LLVM append to a
 * function it copied, specialised or split; a number may follow each.
 */
static const char *const clone_words[] = {
	"constprop", "isra", "part", "cold", "lto_priv", "clone", "localalias", "llvm",
	"__uniq", "specialized", "hot",
};

static bool all_digits(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

static bool is_clone_word(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(clone_words) / sizeof(clone_words[0]); i++) {
		if (strlen(clone_words[i]) == len && !memcmp(s, clone_words[i], len))
			return true;
	}
	return false;
}

size_t source_name__base_len(const char *raw)
{
	size_t len = strlen(raw), base = len;
	bool after_number = false; /* the token to the right was a number: a word must come */

	/*
	 * From the end, token by token: numbers must belong to a word before them, and the
	 * cut lands before the leftmost word of the unbroken run of suffixes.
	 */
	for (size_t end = len; end > 0;) {
		size_t dot = end;

		while (dot > 0 && raw[dot - 1] != '.')
			dot--;
		if (dot == 0)
			break; /* no dot left: the name itself */
		if (all_digits(raw + dot, end - dot)) {
			if (after_number)
				break; /* two numbers in a row: not GCC's */
			after_number = true;
		} else if (is_clone_word(raw + dot, end - dot)) {
			after_number = false;
			base = dot - 1;
		} else {
			break;
		}
		end = dot - 1;
	}
	/* A number with no word before it (foo.2) is not a clone; a name is never empty. */
	return base ? base : len;
}

char *source_name__of(const char *raw)
{
	size_t len = source_name__base_len(raw);
	char *base = strndup(raw, len), *demangled;

	if (!base)
		return NULL;
	/* Only mangled names: libiberty would also "demangle" some plain C names. */
	if (strncmp(base, "_Z", 2) && strncmp(base, "_R", 2))
		return base;
	demangled = cplus_demangle(base, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (!demangled)
		return base;
	free(base);
	return demangled;
}

bool source_name__is_cxx_allocator(const char *raw)
{
	/* ::operator new/new[]/delete/delete[]: _Znw, _Zna, _Zdl, _Zda, then the parameters. */
	return !strncmp(raw, "_Znw", 4) || !strncmp(raw, "_Zna", 4) || !strncmp(raw, "_Zdl", 4) ||
	       !strncmp(raw, "_Zda", 4);
}

bool source_name__is_profiling_alias(const char *name, const char *other)
{
	return name[0] == 'P' && !strcmp(name + 1, other);
}
