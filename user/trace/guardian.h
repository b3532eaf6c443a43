/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The guardian: a small process, started before any probe is placed, that lets every
 * process heaptap stopped run on by itself, whatever happens to heaptap. It holds only the
 * two hold maps (see struct ht_hold in heaptap.h) and the read end of a pipe heaptap keeps
 * open. A stop older than the bound is ended (heaptap is slow or stopped); once heaptap is
 * gone (the pipe reads EOF: killed, crashed, or done) holds are disabled and every stop is
 * ended at once. It runs in its own session, so a terminal's signals do not reach it; if
 * it dies first, heaptap disables holds itself (hold_guard__check).
 */
#ifndef HEAPTAP_GUARDIAN_H
#define HEAPTAP_GUARDIAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "clock.h"

/* No stop lasts longer than this (and none starts when heaptap is slower than half). */
#define HT_HOLD_BOUND_MS 1000

/*
 * The bound in force: HT_HOLD_BOUND_MS, or HEAPTAP_HOLD_BOUND_MS (100 to 60,000) where
 * everything runs many times slower than the bound was sized for: an emulated machine
 * (tools/vm/kernel_tests.sh under QEMU's TCG).
 */
uint64_t hold_bound_ns(void);

struct guardian;

/* Fork the guardian over the maps `held` and `hold_control`. 0 or -errno. */
int guardian__start(int held_fd, int control_fd, struct guardian **out);
/* Is it still running? */
bool guardian__alive(struct guardian *g);
/* Tell it heaptap is done (it ends what is still stopped, then exits). Accepts NULL. */
void guardian__free(struct guardian *g);

/*
 * End pid's stop, if it is still recorded in `held`, is the stop made at since_ns (0: any),
 * and still the process that was stopped: delete the entry and, if this call deleted it,
 * send SIGCONT. Shared by heaptap and the guardian, so that exactly one of them sends it.
 * true if it was sent.
 */
bool hold_end(int held_fd, pid_t pid, uint64_t since_ns);
/* End every recorded stop (all of them, or those older than min_age_ns). How many. */
unsigned int hold_end_all(int held_fd, uint64_t min_age_ns);
/* Set or clear `disabled`, and/or the heartbeat (0: leave it), in hold_control. */
int hold_control_set(int control_fd, bool disabled, uint64_t heartbeat_ns);

#endif
