/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* libnames.so (names_c.c, names_cpp.cc) and the program that runs it (names.cc). */
#ifndef HEAPTAP_TARGET_NAMES_H
#define HEAPTAP_TARGET_NAMES_H

#ifdef __cplusplus
extern "C" {
#endif

/* Each source function's own mallocs (a new counts as its malloc). */
enum names_function {
	NAMES_MK_CONST,
	NAMES_MK_ISRA,
	NAMES_NM_COLD,
	NAMES_INL_HELPER,
	NAMES_TAIL_ALLOC,
	NAMES_TAIL_PUB,
	NAMES_POOL_GRAB,
	NAMES_POOL_MAKE_NODE,
	NAMES_MAKE_ARRAY,
	NAMES_NR,
};

extern long names_truth[NAMES_NR];

void names_run_c(int rounds);
void names_run_cpp(int rounds);
void *names_tail_pub(unsigned long n);
void *names_inline(unsigned long n);

#ifdef __cplusplus
}
#endif

#endif
