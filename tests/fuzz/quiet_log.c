// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * user/base/log.c for the fuzzers: every message is still formatted (the sanitizers check what
 * its arguments point at), then dropped, so that millions of warnings about crafted files
 * neither fill the logs nor slow the run.
 */
#include <stdarg.h>
#include <stdio.h>
#include "log.h"

bool log_verbose = true; /* format the debug messages too */

static void drop(const char *fmt, va_list ap)
{
	char line[512];

	vsnprintf(line, sizeof(line), fmt, ap);
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	drop(fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	drop(fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	drop(fmt, ap);
	va_end(ap);
}

void log_setup_libbpf(void)
{
}
