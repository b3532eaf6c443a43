// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What the README and tools/docs claim about heaptap, checked against what the binary
 * itself says (--version, --help): a claim that drifts from the code fails here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "driver.h"
#include "shell.h"

TestSuite(doc_claims, .timeout = 60);

/* A file of the source tree, whole. */
static char *source_file(const char *name)
{
	char path[4200], *text;

	snprintf(path, sizeof(path), "%s/%s", source_dir(), name);
	text = slurp(path);
	cr_assert(text != NULL, "cannot read %s", path);
	return text;
}

/* The kernel the README's set-up names is the one heaptap --version checks for. */
Test(doc_claims, readme_kernel_is_the_one_heaptap_checks)
{
	char *readme = source_file("README.md"), *out, *claim, *feature;
	int major, minor, want_major, want_minor;

	cr_assert(eq(int, sh(&out, 10, "'%s' --version", heaptap_path()), 0), "%s", out);
	feature = strstr(out, "\n  Linux ");
	cr_assert(feature != NULL, "heaptap --version names no kernel: %s", out);
	cr_assert(eq(int, sscanf(feature, "\n  Linux %d.%d or later", &want_major, &want_minor),
		     2),
		  "%s", out);
	claim = strstr(readme, "\nheaptap runs on Linux ");
	cr_assert(claim != NULL, "README's set-up says no longer which kernels heaptap runs on");
	cr_assert(eq(int, sscanf(claim, "\nheaptap runs on Linux %d.%d or later", &major, &minor),
		     2));
	cr_expect(major == want_major && minor == want_minor,
		  "README says Linux %d.%d, heaptap --version checks for %d.%d", major, minor,
		  want_major, want_minor);
	free(out);
	free(readme);
}
