// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdarg.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include "log.h"

bool log_verbose;

static void vlog(const char *fmt, va_list ap)
{
	fputs("heaptap: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* Without -v, not even warnings: heaptap reports failures in its own words. */
	if (!log_verbose)
		return 0;
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

void log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
