/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What heaptap --version prints: its version, libbpf's, and what the kernel offers. */
#ifndef HEAPTAP_VERSION_H
#define HEAPTAP_VERSION_H

#include <stdio.h>

/* The version heaptap was built as: `git describe` at build time, or the package's. */
extern const char heaptap_version[];

/* heaptap's version, libbpf's (built against, running), and the kernel features found. */
void version_print(FILE *out);

#endif
