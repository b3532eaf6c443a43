// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap collect: the collector, until SIGINT or SIGTERM. */
#include "auth.h"
#include "collector.h"
#include "commands.h"

int cmd_collect(const struct options *opts)
{
	static struct auth_key key; /* 4 KiB: not on the stack */
	struct collector_opts co = {
		.listen = opts->listen,
		.db_path = opts->db_path,
		.metrics_listen = opts->metrics_listen,
		.key = &key,
		.munge = { opts->munge, opts->munge_socket },
		.client_timeout = opts->client_timeout,
		.lost_after = opts->lost_after,
		.commit_every = opts->commit_every,
	};
	int status;

	if (opts->key_path && auth_key_load(opts->key_path, &key))
		return EXIT_USAGE;
	if (opts->munge && munge_cred_probe(&co.munge)) {
		auth_key_wipe(&key);
		return EXIT_USAGE;
	}
	catch_stop_signals(request_stop);
	status = collector__run(&co, &stop_requested);
	auth_key_wipe(&key);
	return status;
}
