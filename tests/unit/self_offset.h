/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Unit-test helper: where an address of this test binary lies in the file that maps it. */
#ifndef HEAPTAP_TEST_SELF_OFFSET_H
#define HEAPTAP_TEST_SELF_OFFSET_H

#include <stdint.h>

uint64_t file_offset(const void *addr);

#endif
