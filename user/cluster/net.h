/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* TCP endpoints named "HOST:PORT" ("[v6]:PORT"), non-blocking sockets. */
#ifndef HEAPTAP_NET_H
#define HEAPTAP_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define NET_NAME_SIZE 80 /* "[address]:port" */

/* Split "HOST:PORT" into host and port. 0, or -EINVAL when it is not of that form. */
int net_split(const char *endpoint, char *host, size_t host_size, char *port, size_t port_size);
/*
 * A listening socket (non-blocking, close-on-exec) on endpoint; port 0 takes a free one.
 * The socket, with *name the address it really has; or -errno after one logged line.
 */
int net_listen(const char *endpoint, char *name, size_t name_size, bool *loopback);
/*
 * Start connecting to endpoint (non-blocking): the socket, whose connection completes
 * when it turns writable (net_connected tells); or -errno (-ENOENT: the name is unknown).
 */
int net_connect(const char *endpoint);
/* Did the connection started on fd succeed? 0 or -errno. */
int net_connected(int fd);
/* "address:port" of a socket's address. */
void net_name(const struct sockaddr *sa, socklen_t len, char *name, size_t size);
/* Send all of buf on a blocking or non-blocking fd; the bytes sent, or -errno. */
long net_send(int fd, const void *buf, size_t len);

#endif
