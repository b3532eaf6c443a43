// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap collect: the collector, until SIGINT or SIGTERM. */
#include <stdlib.h>
#include "auth.h"
#include "cmd_collect.h"
#include "collector.h"
#include "commands.h"

static int cmd_collect(const void *options)
{
	static struct auth_key key; /* 4 KiB: not on the stack */
	const struct collect_options *opts = options;
	struct collector_opts co = {
		.listen = opts->listen,
		.db_path = opts->db_path,
		.metrics_listen = opts->metrics_listen,
		.key = &key,
		.munge = { opts->cred.munge, opts->cred.munge_socket },
		.client_timeout = opts->client_timeout,
		.lost_after = opts->lost_after,
		.commit_every = opts->commit_every,
	};
	int status;

	/* It reads no process of this machine: it runs anywhere (a container, an old kernel). */
	status = setup_privileges();
	if (status != EXIT_OK)
		return status;
	if (opts->cred.key_path && auth_key_load(opts->cred.key_path, &key))
		return EXIT_USAGE;
	if (opts->cred.munge && munge_cred_probe(&co.munge)) {
		auth_key_wipe(&key);
		return EXIT_USAGE;
	}
	catch_stop_signals(request_stop);
	status = collector__run(&co, &stop_requested);
	auth_key_wipe(&key);
	return status;
}

/* collect's own options without a short form. */
enum { OPT_LISTEN = CLI_OWN_KEYS, OPT_DB, OPT_METRICS, OPT_CLIENT_TIMEOUT, OPT_LOST_AFTER,
       OPT_COMMIT_EVERY };

static const struct argp_option options[] = {
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0, "accept agents there (default 127.0.0.1:7400: "
						"this machine only; port 0: any free port)" },
	{ "db", OPT_DB, "FILE|URL", 0, "the database to store runs in: an SQLite file (created if "
				      "missing) or a PostgreSQL connection string, "
				      "postgresql://[USER@]HOST[:PORT]/DB[?sslmode=verify-full] "
				      "(password from PGPASSFILE, ~/.pgpass or a service file)" },
	{ "metrics", OPT_METRICS, "ADDR:PORT", 0, "serve Prometheus metrics at "
						  "http://ADDR:PORT/metrics" },
	CLI_OPTION_KEY("agents must hold"),
	CLI_OPTIONS_MUNGE("agents must bring a MUNGE credential of root or of this user, made "
			  "for this connection (with --key: both)"),
	{ "client-timeout", OPT_CLIENT_TIMEOUT, "SECONDS", 0,
	  "close a connection whose handshake or frame takes longer, or that is silent that "
	  "long (default 30)" },
	{ "lost-after", OPT_LOST_AFTER, "SECONDS", 0,
	  "an agent gone without a goodbye that long leaves its running processes \"agent "
	  "lost\" (default 30)" },
	{ "commit-every", OPT_COMMIT_EVERY, "SECONDS", 0,
	  "commit (and acknowledge) what agents sent once per SECONDS, each changed group "
	  "written once (default 30; sooner for an agent that asks: it is finishing, or its "
	  "buffer is a quarter full)" },
	{},
};

/* --client-timeout, --lost-after, --commit-every: seconds, 0.1 or more. */
static int parse_seconds(const struct cli_state *c, const char *opt, const char *arg,
			 double *out)
{
	char *end;
	double seconds = strtod(arg, &end);

	if (end == arg || *end || !(seconds >= 0.1) || seconds > 1e6)
		return cli_usage_error(c->sub, "%s wants seconds (0.1 or more), not '%s'", opt,
				       arg);
	*out = seconds;
	return 0;
}

static error_t parse(struct cli_state *c, int key, char *arg)
{
	struct collect_options *o = c->opts;

	switch (key) {
	case OPT_LISTEN:
		o->listen = arg;
		return cli_check_endpoint(c, "--listen", arg);
	case OPT_METRICS:
		o->metrics_listen = arg;
		return cli_check_endpoint(c, "--metrics", arg);
	case OPT_DB:
		o->db_path = arg;
		return 0;
	case OPT_CLIENT_TIMEOUT:
		return parse_seconds(c, "--client-timeout", arg, &o->client_timeout);
	case OPT_LOST_AFTER:
		return parse_seconds(c, "--lost-after", arg, &o->lost_after);
	case OPT_COMMIT_EVERY:
		return parse_seconds(c, "--commit-every", arg, &o->commit_every);
	case ARGP_KEY_END:
		if (!o->db_path)
			return cli_usage_error(c->sub, "%s", "collect needs --db FILE.sqlite (or "
					       "--db postgresql://HOST/DB) to store runs in");
		if (!o->listen)
			o->listen = "127.0.0.1:7400";
		if (!o->client_timeout)
			o->client_timeout = 30;
		if (!o->lost_after)
			o->lost_after = 30;
		if (!o->commit_every)
			o->commit_every = 30;
		return 0;
	default:
		return cli_parse_credentials(c, &o->cred, key, arg);
	}
}

const struct cli_command collect_command = {
	.name = "collect",
	.summary = "receive what agents send and store the runs in SQLite or PostgreSQL",
	.man_section = 8,
	.options = options,
	.args_doc = "--db FILE.sqlite\n--db postgresql://HOST/DB",
	.doc = "Accept agents (and top --collector), store what they send in FILE.sqlite or in "
	       "a PostgreSQL database that many collectors share and run until Ctrl-C or "
	       "SIGTERM. Prints 'heaptap: collecting on ADDR:PORT' on standard error once it "
	       "accepts connections (port 0 takes a free port, and the line shows it).",
	.opts_size = sizeof(struct collect_options),
	.parse = parse,
	.run = cmd_collect,
};
