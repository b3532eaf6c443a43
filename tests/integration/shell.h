/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Shell commands for the tests of what heaptap installs: its package, pages, completion. */
#ifndef HEAPTAP_TEST_SHELL_H
#define HEAPTAP_TEST_SHELL_H

/*
 * Run the command sh -c makes of fmt, with standard output and error together in *out
 * (malloc'ed; pass NULL to drop them). Its exit status, or -1 after timeout_s.
 */
int sh(char **out, int timeout_s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The source tree heaptap was built in ($HEAPTAP's directory), and its build output. */
const char *source_dir(void);
const char *output_dir(void);

#endif
