// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <criterion/criterion.h>
#include "raw_client.h"

int raw_connect(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert(fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0,
		  "cannot connect to 127.0.0.1:%d", port);
	return fd;
}

void raw_send_bytes(int fd, const void *data, size_t len)
{
	cr_assert(send(fd, data, len, MSG_NOSIGNAL) == (ssize_t)len);
}

void raw_send(int fd, const wire_msg *msg)
{
	uint8_t *frame;
	size_t len;

	cr_assert(wire_encode(msg, &frame, &len) == 0);
	raw_send_bytes(fd, frame, len);
	free(frame);
}

wire_msg *raw_read(int fd)
{
	uint8_t header[WIRE_HEADER_SIZE], *body;
	const char *why;
	wire_msg *msg;
	uint32_t len;

	if (recv(fd, header, sizeof(header), MSG_WAITALL) != sizeof(header))
		return NULL;
	memcpy(&len, header + 4, 4);
	len = ntohl(len);
	body = malloc(len);
	cr_assert(body && recv(fd, body, len, MSG_WAITALL) == (ssize_t)len);
	msg = wire_decode(body, len, &why);
	free(body);
	return msg;
}
