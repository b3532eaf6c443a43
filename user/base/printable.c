// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <string.h>
#include "printable.h"

const char *printable(const char *s, char *buf, size_t size)
{
	size_t used = 0;

	if (!size)
		return buf;
	for (; *s; s++) {
		unsigned char c = *s;
		char esc[8] = { (char)c, '\0' };
		size_t n;

		if (c == '\n' || c == '\t' || c == '\r')
			snprintf(esc, sizeof(esc), "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
		else if (c < 0x20 || c == 0x7f)
			snprintf(esc, sizeof(esc), "\\x%02x", c);
		n = strlen(esc);
		/* A whole escape or nothing: never half of one at the end. */
		if (used + n >= size)
			break;
		memcpy(buf + used, esc, n);
		used += n;
	}
	buf[used] = '\0';
	return buf;
}
