/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* SIGINT and SIGTERM ask heaptap's loops to stop, instead of killing heaptap. */
#ifndef HEAPTAP_STOP_SIGNAL_H
#define HEAPTAP_STOP_SIGNAL_H

#include <signal.h>

/* Set by request_stop; each loop that can be stopped looks at it. */
extern volatile sig_atomic_t stop_requested;
/* A handler that sets stop_requested. */
void request_stop(int sig);
/* SIGINT and SIGTERM to handler, without SA_RESTART: the signal interrupts a poll. */
void catch_stop_signals(void (*handler)(int));

#endif
