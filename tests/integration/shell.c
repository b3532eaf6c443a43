// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "driver.h"
#include "shell.h"

int sh(char **out, int timeout_s, const char *fmt, ...)
{
	char *script, path[256];
	char *argv[] = { "sh", "-c", NULL, NULL };
	va_list ap;
	int status, n;

	va_start(ap, fmt);
	n = vasprintf(&script, fmt, ap);
	va_end(ap);
	cr_assert(n >= 0, "out of memory");
	/* Both streams in one file, in the order they were written. */
	n = asprintf(&argv[2], "exec 2>&1\n%s", script);
	cr_assert(n >= 0, "out of memory");
	status = wait_status(spawn(argv, scratch_file("sh.out", path, sizeof(path)), NULL),
			     timeout_s);
	if (out) {
		*out = slurp(path);
		cr_assert(*out, "cannot read %s", path);
	}
	free(argv[2]);
	free(script);
	return status;
}

const char *source_dir(void)
{
	static char dir[PATH_MAX];

	if (!dir[0]) {
		char *slash;

		cr_assert(realpath(heaptap_path(), dir), "HEAPTAP: %s", heaptap_path());
		slash = strrchr(dir, '/');
		*slash = '\0';
	}
	return dir;
}

const char *output_dir(void)
{
	static char dir[PATH_MAX];

	if (!dir[0]) {
		const char *o = getenv("HEAPTAP_OUTPUT");

		int n = o ? snprintf(dir, sizeof(dir), "%s", o) :
			    snprintf(dir, sizeof(dir), "%.*s/.output", PATH_MAX - 16, source_dir());

		cr_assert(n < (int)sizeof(dir), "path too long");
	}
	return dir;
}
