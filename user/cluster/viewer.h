/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A viewer's connection to a collector (top --collector): ask for a run, get it back. */
#ifndef HEAPTAP_VIEWER_H
#define HEAPTAP_VIEWER_H

#include <stdbool.h>
#include <stdint.h>
#include "auth.h"
#include "munge_cred.h"
#include "run_view.h"

struct viewer;

/* Connect and authenticate (blocking, bounded). 0, or -errno after one logged line. */
int viewer__connect(const char *endpoint, const struct auth_key *key,
		    const struct munge_opts *munge, struct viewer **out);
void viewer__free(struct viewer *v);
/*
 * Run (0: the newest): every process's total (process 0; whole: every process whole), or
 * one process whole. 0, -ENOENT (no such run yet), or -errno after one logged line.
 */
int viewer__query(struct viewer *v, uint64_t run, uint64_t process, bool whole,
		  struct run_view *out);

#endif
