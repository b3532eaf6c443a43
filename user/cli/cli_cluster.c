// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The options of the cluster's commands: agent, collect, report, top --collector. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli_table.h"
#include "net.h"

#define OPTION_KEY(who)                                                                       \
	{ "key", OPT_KEY, "FILE", 0, "the shared key " who " (mode 0600): both sides prove "  \
				     "they hold it, it never travels" }

#define OPTIONS_MUNGE(who)                                                                    \
	{ "munge", OPT_MUNGE, NULL, 0, who },                                                 \
	{ "munge-socket", OPT_MUNGE_SOCKET, "PATH", 0, "munged's socket (default: libmunge's "  \
						      "own); implies --munge" }

const struct argp_option cli_agent_options[] = {
	{ "collector", OPT_COLLECTOR, "HOST:PORT", 0, "the collector to send to" },
	OPTION_KEY("the collector was given"),
	OPTIONS_MUNGE("prove to a collect --munge who runs this agent with a MUNGE credential "
		      "(as root: the collector accepts root or its own user)"),
	{ "interval", 'i', "SECONDS", 0, "send what changed every SECONDS (default 1)" },
	{ "pid", 'p', "PID[,PID...]", 0, "trace these running processes" },
	{ "mpi", OPT_MPI, NULL, 0, "every MPI rank on this node, as they start (with a "
				   "COMMAND: its processes that have a rank)" },
	{ "follow", OPT_FOLLOW, NULL, 0, "trace COMMAND and every process it starts" },
	{ "buffer", OPT_BUFFER, "SIZE", 0, "keep up to SIZE bytes of updates the collector has "
					   "not acknowledged (default 64M; K, M, G)" },
	OPTION_ATTRIBUTION,
	OPTION_UNWIND,
	OPTION_CONSUMERS,
	{ "metrics", OPT_METRICS, "ADDR:PORT", 0, "also serve the traced processes' figures "
						  "at http://ADDR:PORT/metrics (Prometheus)" },
	OPTION_LIVE_BLOCKS,
	OPTION_ALLOCATOR,
	{},
};

const struct argp_option cli_collect_options[] = {
	{ "listen", OPT_LISTEN, "ADDR:PORT", 0, "accept agents there (default 127.0.0.1:7400: "
						"this machine only; port 0: any free port)" },
	{ "db", OPT_DB, "FILE|URL", 0, "the database to store runs in: an SQLite file (created if "
				      "missing) or a PostgreSQL connection string, "
				      "postgresql://[USER@]HOST[:PORT]/DB[?sslmode=verify-full] "
				      "(password from PGPASSFILE, ~/.pgpass or a service file)" },
	{ "metrics", OPT_METRICS, "ADDR:PORT", 0, "serve Prometheus metrics at "
						  "http://ADDR:PORT/metrics" },
	OPTION_KEY("agents must hold"),
	OPTIONS_MUNGE("agents must bring a MUNGE credential of root or of this user, made for "
		      "this connection (with --key: both)"),
	{ "client-timeout", OPT_CLIENT_TIMEOUT, "SECONDS", 0,
	  "close a connection whose handshake or frame takes longer, or that is silent that "
	  "long (default 30)" },
	{ "lost-after", OPT_LOST_AFTER, "SECONDS", 0,
	  "an agent gone without a goodbye that long leaves its running processes \"agent "
	  "lost\" (default 30)" },
	{ "commit-every", OPT_COMMIT_EVERY, "SECONDS", 0,
	  "commit (and acknowledge) what agents sent once per SECONDS, each changed group "
	  "written once (default 30; sooner for an agent that asks: it is finishing, or its "
	  "buffer is half full)" },
	{},
};

static int check_endpoint(const struct cli_state *c, const char *opt, const char *arg)
{
	char host[256], port[8];

	if (net_split(arg, host, sizeof(host), port, sizeof(port)))
		return cli_usage_error(c->sub, "%s wants HOST:PORT (or [IPv6]:PORT), not '%s'",
				       opt, arg);
	return 0;
}

error_t cli_parse_cluster_option(struct cli_state *c, int key, char *arg)
{
	struct options *o = c->opts;
	char *end;
	double seconds;

	switch (key) {
	case OPT_COLLECTOR:
		o->collector = arg;
		return check_endpoint(c, "--collector", arg);
	case OPT_KEY:
		o->key_path = arg;
		return 0;
	case OPT_MUNGE:
		o->munge = true;
		return 0;
	case OPT_MUNGE_SOCKET:
		if (!*arg)
			return cli_usage_error(c->sub, "%s", "--munge-socket wants munged's socket "
					       "path (e.g. /run/munge/munge.socket.2)");
		o->munge = true;
		o->munge_socket = arg;
		return 0;
	case OPT_LISTEN:
		o->listen = arg;
		return check_endpoint(c, "--listen", arg);
	case OPT_METRICS:
		o->metrics_listen = arg;
		return check_endpoint(c, "--metrics", arg);
	case OPT_DB:
		o->db_path = arg;
		return 0;
	case OPT_CLIENT_TIMEOUT:
	case OPT_LOST_AFTER:
	case OPT_COMMIT_EVERY:
		seconds = strtod(arg, &end);
		if (end == arg || *end || !(seconds >= 0.1) || seconds > 1e6)
			return cli_usage_error(c->sub, "%s wants seconds (0.1 or more), not '%s'",
					       key == OPT_LOST_AFTER	 ? "--lost-after"
					       : key == OPT_COMMIT_EVERY ? "--commit-every"
									 : "--client-timeout",
					       arg);
		*(key == OPT_LOST_AFTER	    ? &o->lost_after
		  : key == OPT_COMMIT_EVERY ? &o->commit_every
					    : &o->client_timeout) = seconds;
		return 0;
	case OPT_BUFFER:
		if (budget_size_parse(arg, strlen(arg), 1ull << 40, &o->buffer_limit) ||
		    o->buffer_limit < 4096)
			return cli_usage_error(c->sub, "--buffer wants a size of 4K or more, such as "
					       "64M, not '%s'", arg);
		return 0;
	case OPT_RUN:
		errno = 0;
		o->run_id = strtol(arg, &end, 10);
		if (errno || end == arg || *end || o->run_id <= 0)
			return cli_usage_error(c->sub, "--run wants a run id (heaptap report DB "
					       "--list shows them), not '%s'", arg);
		return 0;
	case OPT_LIST:
		o->list_runs = true;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int cli_check_agent(const struct cli_subcommand *sub, struct options *o)
{
	int sources = !!o->nr_pids + !!o->command + (o->mpi_only && !o->command);

	if (!o->collector)
		return cli_usage_error(sub, "%s", "agent needs --collector HOST:PORT");
	if (sources != 1)
		return cli_usage_error(sub, "%s", "agent traces one of: --mpi, -p PID..., or "
					     "[--follow|--mpi] -- COMMAND");
	if (o->follow && !o->mpi_only && !o->command)
		return cli_usage_error(sub, "%s", "--follow goes with a COMMAND");
	if (!o->buffer_limit)
		o->buffer_limit = 64u << 20;
	return 0;
}

int cli_check_collect(const struct cli_subcommand *sub, struct options *o)
{
	if (!o->db_path)
		return cli_usage_error(sub, "%s",
				       "collect needs --db FILE.sqlite (or --db "
				       "postgresql://HOST/DB) to store runs in");
	if (!o->listen)
		o->listen = "127.0.0.1:7400";
	if (!o->client_timeout)
		o->client_timeout = 30;
	if (!o->lost_after)
		o->lost_after = 30;
	if (!o->commit_every)
		o->commit_every = 30;
	return 0;
}
