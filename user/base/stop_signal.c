// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "stop_signal.h"

volatile sig_atomic_t stop_requested;

void request_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

void catch_stop_signals(void (*handler)(int))
{
	/* No SA_RESTART: the signal must interrupt the poll. */
	struct sigaction sa = { .sa_handler = handler };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
