/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Text from a traced process (its command line) made safe to print on one line. */
#ifndef HEAPTAP_PRINTABLE_H
#define HEAPTAP_PRINTABLE_H

#include <stddef.h>

/* The size of a buffer that holds any string of len bytes made printable. */
#define PRINTABLE_SIZE(len) (4 * (len) + 1)

/*
 * s with its control characters written as C escapes ("\n", "\t", "\x1b"): a command line
 * with newlines in it prints on one line, and an escape sequence in it cannot drive the
 * terminal. Written to buf (cut to size, always terminated); returns buf.
 */
const char *printable(const char *s, char *buf, size_t size);

#endif
