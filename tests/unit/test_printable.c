// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "printable.h"

TestSuite(printable);

Test(printable, control_characters_become_escapes)
{
	char buf[PRINTABLE_SIZE(64)];

	cr_expect(eq(str, (char *)printable("sh -c a\nb\tc\rd\x1b[2J\x7f", buf, sizeof(buf)),
		     "sh -c a\\nb\\tc\\rd\\x1b[2J\\x7f"));
	cr_expect(eq(str, (char *)printable("plain text, UTF-8 \xc3\xa9", buf, sizeof(buf)),
		     "plain text, UTF-8 \xc3\xa9"));
	cr_expect(eq(str, (char *)printable("", buf, sizeof(buf)), ""));
}

Test(printable, cut_to_the_buffer_never_in_an_escape)
{
	char buf[5];

	cr_expect(eq(str, (char *)printable("abcdefgh", buf, sizeof(buf)), "abcd"));
	/* "abc\\n" needs 5 bytes and the terminator: "abc\\" would be half an escape. */
	cr_expect(eq(str, (char *)printable("abc\nd", buf, sizeof(buf)), "abc"));
	cr_expect(eq(str, (char *)printable("a\x01", buf, sizeof(buf)), "a"));
	/* The worst case fits PRINTABLE_SIZE. */
	{
		char all[PRINTABLE_SIZE(3)];

		cr_expect(eq(str, (char *)printable("\x01\x02\x03", all, sizeof(all)),
			     "\\x01\\x02\\x03"));
	}
}
