/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Byte counts the live views print in narrow columns. */
#ifndef HEAPTAP_HUMAN_BYTES_H
#define HEAPTAP_HUMAN_BYTES_H

#include <stddef.h>
#include <stdint.h>

/*
 * "12.3M": bytes in 7 columns, signed (a group that frees more than it allocates goes
 * negative). Returns buf.
 */
const char *human_bytes(int64_t bytes, char *buf, size_t size);

#endif
