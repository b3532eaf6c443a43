/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Messages on standard error, each one line prefixed "heaptap: ". */
#ifndef HEAPTAP_LOG_H
#define HEAPTAP_LOG_H

#include <stdbool.h>

extern bool log_verbose;

void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Shown only with -v. */
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Route libbpf's messages through log_debug, so its noise appears only with -v. */
void log_setup_libbpf(void);

#endif
