// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A command line with newlines and control characters in it: the text report names the
 * program on one line, escaped; the JSON keeps it as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"

TestSuite(command_line, .timeout = 60);

Test(command_line, program_name_on_one_line)
{
	char text[256], json[256], *report;
	const char *line;
	/* A script of two lines, and an escape sequence that would clear a terminal. */
	char *argv[] = { (char *)heaptap_path(), "run", "-o", text, "--json", json, "--",
			 "/bin/sh", "-c", "x=$(echo a)\necho \"$x\" >/dev/null", "\x1b[2J", NULL };
	json_object *j, *p;

	require_bpf();
	scratch_file("report.txt", text, sizeof(text));
	scratch_file("report.json", json, sizeof(json));
	cr_assert(eq(int, wait_status(spawn(argv, NULL, NULL), 30), 0));
	j = load_json(json);
	p = json_object_array_get_idx(get(j, "processes"), 0);
	cr_expect(eq(str, (char *)json_object_get_string(get(p, "command")),
		     "/bin/sh -c x=$(echo a)\necho \"$x\" >/dev/null \x1b[2J"));
	report = slurp(text);
	cr_assert(report != NULL);
	/* Whatever the line's label, the command is on it whole, escaped. */
	line = strstr(report, "/bin/sh -c x=$(echo a)\\necho \"$x\" >/dev/null \\x1b[2J");
	cr_expect(line != NULL, "the command line, escaped, not in:\n%s", report);
	cr_expect(strstr(report, "x=$(echo a)\n") == NULL, "a raw newline in:\n%s", report);
	cr_expect(strchr(report, '\x1b') == NULL, "an escape character in the text report");
	json_object_put(j);
	free(report);
}
