// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What the cluster's subcommands share: credentials, endpoints, run ids (cli_cluster.h). */
#include <errno.h>
#include <stdlib.h>
#include "cli_cluster.h"
#include "net.h"

error_t cli_parse_credentials(struct cli_state *c, struct cluster_credentials *cred, int key,
			      char *arg)
{
	switch (key) {
	case CLI_OPT_KEY:
		cred->key_path = arg;
		return 0;
	case CLI_OPT_MUNGE:
		cred->munge = true;
		return 0;
	case CLI_OPT_MUNGE_SOCKET:
		if (!*arg)
			return cli_usage_error(c->sub, "%s", "--munge-socket wants munged's socket "
					       "path (e.g. /run/munge/munge.socket.2)");
		cred->munge = true;
		cred->munge_socket = arg;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int cli_check_endpoint(const struct cli_state *c, const char *opt, const char *arg)
{
	char host[256], port[8];

	if (net_split(arg, host, sizeof(host), port, sizeof(port)))
		return cli_usage_error(c->sub, "%s wants HOST:PORT (or [IPv6]:PORT), not '%s'",
				       opt, arg);
	return 0;
}

int cli_parse_run_id(const struct cli_state *c, const char *arg, long *id)
{
	char *end;

	errno = 0;
	*id = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *id <= 0)
		return cli_usage_error(c->sub, "--run wants a run id (heaptap report DB --list "
				       "shows them), not '%s'", arg);
	return 0;
}
