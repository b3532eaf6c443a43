/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What budget_lib.c's allocating function counts (tests/integration/test_budget.c). */
#ifndef HEAPTAP_TARGET_BUDGET_H
#define HEAPTAP_TARGET_BUDGET_H

#include <stdint.h>

struct budget_counts {
	long malloc, calloc, realloc, free;
};

#endif
