/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The allocation stacks and owner figures of processes (struct target: a live session's,
 * or a stored run's as run_view.h rebuilds them) as a heap profile.
 */
#ifndef HEAPTAP_PROFILE_SESSION_H
#define HEAPTAP_PROFILE_SESSION_H

#include "heap_profile.h"
#include "session.h"

/*
 * Every traced process's allocation stacks into p, labeled with its pid and rank, with the
 * build ids of the files they run in. 0 or -ENOMEM.
 */
int profile_from_session(struct session *s, struct heap_profile *p);
/* One process's sites into p, labeled with its pid and rank. 0 or -ENOMEM. */
int profile_add_target(struct heap_profile *p, const struct target *t);

#endif
