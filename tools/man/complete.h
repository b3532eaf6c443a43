/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The shell completion scripts gendoc writes (complete.c). */
#ifndef HEAPTAP_COMPLETE_H
#define HEAPTAP_COMPLETE_H

#include <stdio.h>

/* The completion scripts, on out. 0, or 1 if out failed. */
int complete_bash(FILE *out);
int complete_zsh(FILE *out);

#endif
