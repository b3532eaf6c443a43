// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <criterion/criterion.h>
#include "driver.h"
#include "services.h"

pid_t spawn_service(char *const argv[], const char *out, const char *err)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/* The test died between fork and prctl: nobody would send the signal. */
		if (getppid() != parent)
			_exit(1);
		dup2(o, 1);
		dup2(e, 2);
		setpgid(0, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

int stop_service(pid_t pid, int timeout_s)
{
	kill(pid, SIGTERM);
	return wait_status(pid, timeout_s);
}

int free_local_port(void)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert(fd >= 0, "socket: %s", strerror(errno));
	cr_assert(!bind(fd, (struct sockaddr *)&addr, sizeof(addr)) &&
			  !getsockname(fd, (struct sockaddr *)&addr, &len),
		  "cannot bind a port on 127.0.0.1: %s", strerror(errno));
	close(fd);
	return ntohs(addr.sin_port);
}

int http_get(const char *url, const char *name, const char *value, const char *file)
{
	char param[4096];
	char *with[] = { "curl", "-sf", "--max-time", "10", "-o", (char *)file, "-G",
			 "--data-urlencode", param, (char *)url, NULL };
	char *plain[] = { "curl", "-sf", "--max-time", "10", "-o", (char *)file, (char *)url,
			  NULL };
	int status;

	cr_assert(have_program("curl"), "curl is missing: install Debian's curl (make deps-test)");
	if (name)
		snprintf(param, sizeof(param), "%s=%s", name, value);
	status = wait_status(spawn(name ? with : plain, NULL, NULL), 20);
	return status;
}

bool have_program(const char *name)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0;
}
