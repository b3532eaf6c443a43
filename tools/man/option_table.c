// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What the man pages and the completion read of an option table (user/cmd/cmd_*.c). */
#include <ctype.h>
#include <string.h>
#include "option_table.h"

enum arg_kind arg_kind(const struct argp_option *o)
{
	const char *a = o->arg;
	bool words = true;

	if (!a)
		return ARG_NONE;
	for (const char *p = a; *p; p++) {
		if (!islower((unsigned char)*p) && *p != '_' && *p != '|')
			words = false;
	}
	if (words)
		return ARG_CHOICE;
	if (strstr(a, "PID"))
		return ARG_PID;
	if (strstr(a, "FILE") || strstr(a, "PATH") || strstr(a, ".json") || strstr(a, ".sqlite"))
		return ARG_FILE;
	return ARG_TYPED;
}

bool is_end(const struct argp_option *o)
{
	return !o->name && !o->key && !o->doc && !o->group;
}

bool has_short(const struct argp_option *o)
{
	return o->key > 0 && o->key <= 0x7f && isprint(o->key) && !(o->flags & OPTION_DOC);
}

/* The options argp adds to every subcommand. */
const struct argp_option builtin_options[] = {
	{ "help", '?', NULL, 0, "print the options and exit" },
	{ "usage", -3, NULL, 0, "print a short usage message and exit" },
	{ "version", 'V', NULL, 0, "print heaptap's version, libbpf's, and the kernel features "
				   "heaptap needs that this machine has, and exit" },
	{},
};
