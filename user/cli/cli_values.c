// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Values many subcommands' options take: seconds, counts, PIDs, files, the command. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

/* The kernel's PID_MAX_LIMIT on 64-bit: no PID is larger. */
#define PID_LIMIT (1 << 22)

int cli_parse_seconds(const struct cli_state *c, const char *opt, const char *arg,
		      double min, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(arg, &end);
	if (errno || end == arg || *end || !(*out >= min) || *out > 1e9)
		return cli_usage_error(c->sub, "%s wants a number of seconds (%g or more), "
				       "not '%s'", opt, min, arg);
	return 0;
}

int cli_parse_count(const struct cli_state *c, const char *arg, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *out <= 0)
		return cli_usage_error(c->sub, "-n wants a positive count, not '%s'", arg);
	return 0;
}

int cli_add_pids(const struct cli_state *c, const char *list, pid_t **pids, size_t *nr)
{
	const char *item = list;

	for (;;) {
		size_t len = strcspn(item, ",");
		long pid = 0;
		pid_t *grown;
		size_t i;

		if (!len)
			return cli_usage_error(c->sub, "-p '%s' has an empty item: separate "
					       "PIDs with single commas", list);
		for (i = 0; i < len && pid <= PID_LIMIT; i++) {
			if (item[i] < '0' || item[i] > '9')
				break;
			pid = pid * 10 + (item[i] - '0');
		}
		if (i < len || pid <= 0 || pid > PID_LIMIT)
			return cli_usage_error(c->sub, "'%.*s' is not a PID", (int)len, item);
		if (pid == getpid())
			return cli_usage_error(c->sub, "PID %ld is heaptap itself: name the "
					       "processes to trace", pid);
		for (i = 0; i < *nr && (*pids)[i] != pid; i++)
			;
		if (i == *nr) {
			grown = realloc(*pids, (*nr + 1) * sizeof(*grown));
			if (!grown)
				return cli_usage_error(c->sub, "%s", "out of memory");
			*pids = grown;
			(*pids)[(*nr)++] = pid;
		}
		if (!item[len])
			return 0;
		item += len + 1;
	}
}

int cli_add_file(const struct cli_state *c, const char *arg, const char ***files, size_t *nr)
{
	const char **grown = realloc(*files, (*nr + 1) * sizeof(*grown));

	if (!grown)
		return cli_usage_error(c->sub, "%s", "out of memory");
	*files = grown;
	(*files)[(*nr)++] = arg;
	return 0;
}

int cli_take_command(struct cli_state *c, char ***command)
{
	/* The first word that is not an option starts the command, with its options. */
	*command = &c->argp->argv[c->argp->next - 1];
	c->argp->next = c->argp->argc;
	return 0;
}
