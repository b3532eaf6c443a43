/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the cluster's subcommands share (agent, collect, top --collector, report DB): the
 * credentials a connection proves, its endpoints, a stored run's id. A subcommand embeds
 * struct cluster_credentials, puts the rows in its table (their text is its own, the key
 * below) and hands the keys it does not know to cli_parse_credentials.
 */
#ifndef HEAPTAP_CLI_CLUSTER_H
#define HEAPTAP_CLI_CLUSTER_H

#include "cli.h"

enum {
	CLI_OPT_KEY = CLI_CLUSTER_KEYS,
	CLI_OPT_MUNGE,
	CLI_OPT_MUNGE_SOCKET,
};

struct cluster_credentials {
	const char *key_path;	  /* --key */
	bool munge;		  /* --munge */
	const char *munge_socket; /* --munge-socket; NULL: libmunge's */
};

#define CLI_OPTION_KEY(who)                                                                   \
	{ "key", CLI_OPT_KEY, "FILE", 0, "the shared key " who " (mode 0600): both sides "   \
					 "prove they hold it, it never travels" }
#define CLI_OPTIONS_MUNGE(who)                                                                \
	{ "munge", CLI_OPT_MUNGE, NULL, 0, who },                                             \
	{ "munge-socket", CLI_OPT_MUNGE_SOCKET, "PATH", 0, "munged's socket (default: "         \
							  "libmunge's own); implies --munge" }

/* A key of this group: 0 or cli_usage_error()'s value; ARGP_ERR_UNKNOWN for any other. */
error_t cli_parse_credentials(struct cli_state *c, struct cluster_credentials *cred, int key,
			      char *arg);
/* opt's HOST:PORT (or [IPv6]:PORT). 0, or cli_usage_error()'s value. */
int cli_check_endpoint(const struct cli_state *c, const char *opt, const char *arg);
/* --run ID: a stored run's id. 0, or cli_usage_error()'s value. */
int cli_parse_run_id(const struct cli_state *c, const char *arg, long *id);

#endif
