// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* heaptap store-migrate FROM TO: copy the runs of one collector database into another. */
#include <stdio.h>
#include <stdlib.h>
#include "cmd_store_migrate.h"
#include "store_migrate.h"

static int cmd_store_migrate(const void *options)
{
	const struct store_migrate_options *o = options;

	return store__migrate(o->inputs[0], o->inputs[1], stdout) ? EXIT_USAGE : EXIT_OK;
}

static const struct argp_option options[] = {
	{},
};

static error_t parse(struct cli_state *c, int key, char *arg)
{
	struct store_migrate_options *o = c->opts;

	switch (key) {
	case ARGP_KEY_ARG:
		return cli_add_file(c, arg, &o->inputs, &o->nr_inputs);
	case ARGP_KEY_END:
		if (o->nr_inputs != 2)
			return cli_usage_error(c->sub, "%s", "store-migrate needs two databases: "
					       "FROM TO, e.g. run.sqlite postgresql://HOST/DB");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static void free_options(void *opts)
{
	struct store_migrate_options *o = opts;

	free(o->inputs);
}

const struct cli_command store_migrate_command = {
	.name = "store-migrate",
	.summary = "copy the runs of one collector database into another",
	.man_section = 1,
	.options = options,
	.args_doc = "FROM TO",
	.doc = "Copy every run of the database FROM (an SQLite file or a PostgreSQL "
	       "connection string) into TO (the same, usually postgresql://HOST/DB), in one "
	       "transaction: all of it or nothing. A run TO has already (the same job id, or "
	       "the same agent) is left as it is there. Prints a line per run, its id in FROM "
	       "and in TO. Needs no privileges.",
	.takes_files = true,
	.opts_size = sizeof(struct store_migrate_options),
	.parse = parse,
	.free = free_options,
	.run = cmd_store_migrate,
};
