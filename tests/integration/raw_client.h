/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A raw client of heaptap's wire protocol, for tests that send the collector what heaptap
 * itself never would: garbage, wrong keys, forged credentials.
 */
#ifndef HEAPTAP_TEST_RAW_CLIENT_H
#define HEAPTAP_TEST_RAW_CLIENT_H

#include <stddef.h>
#include "wire.h"

/* A connected socket to 127.0.0.1:port (the test fails if it cannot connect). */
int raw_connect(int port);
void raw_send_bytes(int fd, const void *data, size_t len);
/* One message, framed. */
void raw_send(int fd, const wire_msg *msg);
/* The next message on fd (blocking); NULL at EOF or if it does not decode. */
wire_msg *raw_read(int fd);

#endif
