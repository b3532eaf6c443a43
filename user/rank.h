/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A process's MPI rank, as its launcher put it in the environment. */
#ifndef HEAPTAP_RANK_H
#define HEAPTAP_RANK_H

#include <stddef.h>
#include <sys/types.h>

/* Rank from an environment block (NUL-separated NAME=VALUE), or -1 when it has none. */
int rank_from_environ(const char *block, size_t len);
/* Rank from /proc/PID/environ, or -1. */
int rank_of_process(pid_t pid);

#endif
