// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "cli.h"
#include "preflight.h"

TestSuite(cli);

static char errors[1024];

/* cli_parse("heaptap", args..., NULL), its standard error kept in errors[]. */
static int parse(struct options *o, ...)
{
	static char *argv[32]; /* o->command points into it */
	int argc = 1, saved, status;
	FILE *tmp = tmpfile();
	size_t n;
	va_list ap;

	argv[0] = "heaptap";
	va_start(ap, o);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	cr_assert(tmp != NULL);
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	status = cli_parse(argc, argv, o);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(errors, 1, sizeof(errors) - 1, tmp);
	errors[n] = '\0';
	fclose(tmp);
	return status;
}

/* A usage error: status 2 and one line naming what is wrong. */
static void expect_usage(const char *mentions, struct options *o, int status)
{
	cr_expect(eq(int, status, EXIT_USAGE), "status for: %s", errors);
	cr_expect(strncmp(errors, "heaptap: ", 9) == 0, "'%s'", errors);
	cr_expect(strchr(errors, '\n') == errors + strlen(errors) - 1, "one line: '%s'", errors);
	cr_expect(strstr(errors, mentions) != NULL, "'%s' not in '%s'", mentions, errors);
	cli_free(o);
}

Test(cli, run_options_and_the_command_with_its_own)
{
	struct options o;

	cr_assert(eq(int, parse(&o, "run", "-a", "caller", "--json", "j", "-o", "t", "--stacks",
			       "s", "--follow", "--unwind", "fp", "--", "prog", "-d", "x", NULL),
		     EXIT_OK), "%s", errors);
	cr_expect(eq(int, o.cmd, CMD_RUN));
	cr_expect(eq(int, o.rule, ATTRIBUTE_CALLER));
	cr_expect(eq(str, (char *)o.json_path, "j"));
	cr_expect(eq(str, (char *)o.text_path, "t"));
	cr_expect(eq(str, (char *)o.stacks_path, "s"));
	cr_expect(o.follow && o.frame_pointers && !o.mpi_only && !o.verbose);
	cr_expect(eq(str, o.command[0], "prog"));
	cr_expect(eq(str, o.command[1], "-d"));
	cr_expect(eq(str, o.command[2], "x"));
	cr_expect(eq(ptr, o.command[3], NULL));
	cli_free(&o);

	/* Without "--", heaptap's options end at the command too. */
	cr_assert(eq(int, parse(&o, "run", "--mpi", "prog", "-v", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(str, o.command[0], "prog"));
	cr_expect(eq(str, o.command[1], "-v"));
	cr_expect(o.mpi_only && o.follow && !o.verbose);
	cli_free(&o);
}

Test(cli, global_options_before_or_after_the_subcommand)
{
	struct options o;

	cr_assert(eq(int, parse(&o, "-v", "run", "--", "true", NULL), EXIT_OK), "%s", errors);
	cr_expect(o.verbose);
	cr_expect(eq(str, o.command[0], "true"));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "--verbose", "attach", "-p", "1", NULL), EXIT_OK), "%s",
		  errors);
	cr_expect(o.verbose && o.cmd == CMD_ATTACH);
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "top", "-p", "1", "-v", NULL), EXIT_OK), "%s", errors);
	cr_expect(o.verbose && o.cmd == CMD_TOP);
	cli_free(&o);
}

Test(cli, an_option_of_another_subcommand_is_refused)
{
	struct options o;

	expect_usage("-d (an option of attach)", &o,
		     parse(&o, "run", "-d", "5", "--", "true", NULL));
	expect_usage("--duration", &o, parse(&o, "run", "--duration=5", "--", "true", NULL));
	expect_usage("-p (an option of attach, top, sites and agent)", &o,
		     parse(&o, "run", "-p", "1", "--", "true", NULL));
	expect_usage("--follow", &o, parse(&o, "attach", "-p", "1", "--follow", NULL));
	expect_usage("-b", &o, parse(&o, "attach", "-p", "1", "-b", NULL));
	expect_usage("-d", &o, parse(&o, "top", "-p", "1", "-d", "1", NULL));
	expect_usage("--stacks", &o, parse(&o, "top", "-p", "1", "--stacks", "x", NULL));
	/* Clustered short options are checked one by one. */
	expect_usage("-d", &o, parse(&o, "run", "-vd", "1", "--", "true", NULL));
	/* A subcommand's option before the subcommand. */
	expect_usage("after the subcommand", &o, parse(&o, "-p", "1", "attach", NULL));
	expect_usage("--frob", &o, parse(&o, "attach", "-p", "1", "--frob", NULL));
}

Test(cli, option_arguments)
{
	struct options o;

	expect_usage("-p needs an argument", &o, parse(&o, "attach", "-p", NULL));
	expect_usage("--json needs an argument", &o,
		     parse(&o, "attach", "-p", "1", "--json", NULL));
	expect_usage("--json takes no argument", &o, parse(&o, "top", "-p", "1", "--json=x", NULL));
	/* top's --json is a flag, run's names a file. */
	cr_assert(eq(int, parse(&o, "top", "--json", "-p", "1", NULL), EXIT_OK), "%s", errors);
	cr_expect(o.json_lines && o.batch && !o.json_path);
	cli_free(&o);
	/* Long options as getopt reads them: abbreviated, with "=". */
	cr_assert(eq(int, parse(&o, "attach", "--pid=7", "--dur", "1.5", NULL), EXIT_OK), "%s",
		  errors);
	cr_expect(eq(int, o.pids[0], 7));
	cr_expect(o.duration == 1.5);
	cli_free(&o);
	expect_usage("ambiguous", &o, parse(&o, "attach", "-p", "1", "--u", "fp", NULL));
	expect_usage("seconds", &o, parse(&o, "attach", "-p", "1", "-d", "0", NULL));
	expect_usage("seconds", &o, parse(&o, "attach", "-p", "1", "-d", "nan", NULL));
	expect_usage("seconds", &o, parse(&o, "top", "-p", "1", "-i", "0.01", NULL));
	expect_usage("count", &o, parse(&o, "top", "-p", "1", "-n", "-3", NULL));
	expect_usage("attribution", &o, parse(&o, "run", "-a", "outer", "--", "true", NULL));
	expect_usage("--unwind", &o, parse(&o, "run", "--unwind", "dwarf", "--", "true", NULL));
}

Test(cli, pid_lists)
{
	struct options o;

	cr_assert(eq(int, parse(&o, "attach", "-p", "3,1,2", "-p", "4194304", "-p", "1", NULL),
		     EXIT_OK), "%s", errors);
	cr_assert(eq(sz, o.nr_pids, 4), "a PID named twice is kept once");
	cr_expect(eq(int, o.pids[0], 3));
	cr_expect(eq(int, o.pids[1], 1));
	cr_expect(eq(int, o.pids[2], 2));
	cr_expect(eq(int, o.pids[3], 4194304));
	cli_free(&o);

	expect_usage("empty item", &o, parse(&o, "attach", "-p", "1,,2", NULL));
	expect_usage("empty item", &o, parse(&o, "attach", "-p", ",1", NULL));
	expect_usage("empty item", &o, parse(&o, "attach", "-p", "1,", NULL));
	expect_usage("empty item", &o, parse(&o, "attach", "-p", "", NULL));
	expect_usage("'0' is not a PID", &o, parse(&o, "attach", "-p", "0", NULL));
	expect_usage("'-1' is not a PID", &o, parse(&o, "attach", "-p", "-1", NULL));
	expect_usage("'abc' is not a PID", &o, parse(&o, "attach", "-p", "1,abc", NULL));
	expect_usage("'12x' is not a PID", &o, parse(&o, "attach", "-p", "12x", NULL));
	expect_usage("'+5' is not a PID", &o, parse(&o, "attach", "-p", "+5", NULL));
	expect_usage("' 5' is not a PID", &o, parse(&o, "attach", "-p", " 5", NULL));
	expect_usage("'4194305' is not a PID", &o, parse(&o, "top", "-p", "4194305", NULL));
	expect_usage("'99999999999999999999' is not a PID", &o,
		     parse(&o, "attach", "-p", "99999999999999999999", NULL));
}

Test(cli, heaptap_itself_is_no_target)
{
	struct options o;
	char self[32], list[64];

	snprintf(self, sizeof(self), "%d", getpid());
	snprintf(list, sizeof(list), "1,%d", getpid());
	expect_usage("heaptap itself", &o, parse(&o, "attach", "-p", self, NULL));
	expect_usage(self, &o, parse(&o, "top", "-p", list, NULL));
}

Test(cli, each_subcommand_checks_the_whole)
{
	struct options o;

	expect_usage("name a subcommand: run, attach, top, sites, report, compare, agent, collect or store-migrate",
		     &o,
		     parse(&o, NULL));
	expect_usage("name a subcommand", &o, parse(&o, "-v", NULL));
	expect_usage("unknown subcommand 'frob'", &o, parse(&o, "frob", NULL));
	expect_usage("run needs a command", &o, parse(&o, "run", "--follow", NULL));
	expect_usage("run needs a command", &o, parse(&o, "run", "--", NULL));
	expect_usage("attach needs -p PID or --mpi", &o, parse(&o, "attach", NULL));
	expect_usage("'prog'", &o, parse(&o, "attach", "-p", "1", "prog", NULL));
	expect_usage("not both", &o, parse(&o, "top", "-p", "1", "--follow", "--", "x", NULL));
	expect_usage("only with --follow", &o, parse(&o, "top", "--", "x", NULL));
	expect_usage("top watches", &o, parse(&o, "top", "-b", NULL));
	expect_usage("not both", &o, parse(&o, "sites", "-p", "1", "/lib/libc.so.6", NULL));
	expect_usage("one process", &o, parse(&o, "sites", "-p", "1,2", NULL));
	expect_usage("'b'", &o, parse(&o, "sites", "a", "b", NULL));
	cr_assert(eq(int, parse(&o, "sites", "/lib/libc.so.6", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(str, (char *)o.file, "/lib/libc.so.6"));
	cr_assert(eq(int, parse(&o, "top", "--mpi", NULL), EXIT_OK), "%s", errors);
	cr_expect(o.mpi_only && o.interval == 1.0 && o.rule == ATTRIBUTE_ENTRY);
	cli_free(&o);
}

Test(cli, tree_report_and_compare_options)
{
	struct options o;

	expect_usage("add --tree", &o, parse(&o, "run", "--depth", "2", "--", "x", NULL));
	expect_usage("add --tree", &o, parse(&o, "attach", "-p", "1", "--under", "f", NULL));
	expect_usage("--depth wants a number of levels", &o,
		     parse(&o, "run", "--tree", "--depth", "-1", "--", "x", NULL));
	expect_usage("report reads JSON reports of one job", &o, parse(&o, "report", NULL));
	expect_usage("--tree, --full, --pprof, --folded and --list read one file", &o,
		     parse(&o, "report", "a.json", "b.json", "--tree", NULL));
	cr_assert(eq(int, parse(&o, "report", "a.json", "b.json", "-n", "5", NULL), EXIT_OK),
		  "%s", errors);
	cr_expect(eq(int, o.nr_inputs, 2));
	cr_expect(eq(long, o.count, 5));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "report", "a.json", "--rank", "2", NULL), EXIT_OK), "%s",
		  errors);
	cr_expect(eq(int, o.rank, 2));
	cli_free(&o);
	expect_usage("two or more reports", &o, parse(&o, "compare", "a.json", NULL));
	expect_usage("--by must be world_size", &o,
		     parse(&o, "compare", "a.json", "b.json", "--by", "rank", NULL));
	cr_assert(eq(int, parse(&o, "report", "a.json", "b.json", "--html", "x.html", NULL),
		     EXIT_OK), "%s", errors);
	cr_expect(eq(str, (char *)o.html_path, "x.html"));
	cli_free(&o);
	expect_usage("--html writes the job's page", &o,
		     parse(&o, "report", "a.json", "--html", "x.html", "--tree", NULL));
	expect_usage("--html writes the job's page", &o,
		     parse(&o, "report", "a.json", "--html", "x.html", "--rank", "1", NULL));
	cr_assert(eq(int, parse(&o, "run", "--tree", "--depth", "3", "--under", "MPI_Init", "--",
				"x", NULL),
		     EXIT_OK), "%s", errors);
	cr_expect(o.tree && o.depth == 3 && !strcmp(o.under, "MPI_Init"));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "compare", "a.json", "--under", "f", "b.json", NULL),
		     EXIT_OK), "%s", errors);
	cr_expect(eq(sz, o.nr_inputs, 2));
	cr_expect(o.depth == 3, "compare's default depth");
	cr_expect(eq(str, (char *)o.inputs[1], "b.json"));
	cli_free(&o);
}

Test(cli, kernel_release)
{
	cr_expect(eq(int, kernel_release_at_least("6.6.0", 6, 6), 1));
	cr_expect(eq(int, kernel_release_at_least("6.18.44-fc-v769", 6, 6), 1));
	cr_expect(eq(int, kernel_release_at_least("6.6-rc1", 6, 6), 1));
	cr_expect(eq(int, kernel_release_at_least("7.0.1", 6, 6), 1));
	cr_expect(eq(int, kernel_release_at_least("10.1", 6, 6), 1));
	cr_expect(eq(int, kernel_release_at_least("6.5.13-amd64", 6, 6), 0));
	cr_expect(eq(int, kernel_release_at_least("5.17.0", 6, 6), 0));
	cr_expect(eq(int, kernel_release_at_least("5.17.0", 5, 17), 1));
	cr_expect(eq(int, kernel_release_at_least("4.19.0", 5, 17), 0));
	cr_expect(eq(int, kernel_release_at_least("6", 6, 6), -EINVAL));
	cr_expect(eq(int, kernel_release_at_least("linux", 6, 6), -EINVAL));
}

Test(cli, budgets_default_and_options_change_them)
{
	struct options o;

	cr_assert(eq(int, parse(&o, "run", "--", "prog", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(u64, o.table_budget.per_file, TABLE_BUDGET_FILE));
	cr_expect(eq(u64, o.table_budget.total, TABLE_BUDGET_TOTAL));
	cr_expect(eq(u64, o.symbol_budget.per_file, SYMBOL_BUDGET_FILE));
	cr_expect(eq(u64, o.symbol_budget.total, SYMBOL_BUDGET_TOTAL));
	cli_free(&o);

	cr_assert(eq(int, parse(&o, "attach", "-p", "1", "--table-budget", "1M,4M",
			       "--symbol-budget", ",2G", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(u64, o.table_budget.per_file, 1 << 20));
	cr_expect(eq(u64, o.table_budget.total, 4 << 20));
	cr_expect(eq(u64, o.symbol_budget.per_file, SYMBOL_BUDGET_FILE));
	cr_expect(eq(u64, o.symbol_budget.total, 2ULL << 30));
	cli_free(&o);

	cr_assert(eq(int, parse(&o, "top", "-p", "1", "--table-budget=512K", NULL), EXIT_OK),
		  "%s", errors);
	cr_expect(eq(u64, o.table_budget.per_file, 512 << 10));
	cli_free(&o);

	expect_usage("--table-budget wants SIZE[,TOTAL]",
		     &o, parse(&o, "run", "--table-budget", "lots", "--", "prog", NULL));
	expect_usage("not '1G'", &o, parse(&o, "run", "--table-budget", "1G", "--", "p", NULL));
	expect_usage("--symbol-budget", &o, parse(&o, "run", "--symbol-budget", "0", "--", "p",
						  NULL));
	expect_usage("--symbol-budget needs an argument", &o,
		     parse(&o, "attach", "-p", "1", "--symbol-budget", NULL));
}

Test(cli, the_cluster_commands)
{
	struct options o;

	cr_assert(eq(int, parse(&o, "collect", "--db", "x.sqlite", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(str, (char *)o.listen, "127.0.0.1:7400"), "loopback by default");
	cr_expect(o.client_timeout == 30 && o.lost_after == 30);
	expect_usage("--db", &o, parse(&o, "collect", NULL));
	expect_usage("HOST:PORT", &o, parse(&o, "collect", "--db", "x", "--listen", "7400", NULL));
	expect_usage("HOST:PORT", &o, parse(&o, "collect", "--db", "x", "--listen", "h:p", NULL));
	cr_assert(eq(int, parse(&o, "collect", "--db", "x", "--listen", "[::1]:0", NULL), EXIT_OK),
		  "%s", errors);

	cr_assert(eq(int, parse(&o, "agent", "--collector", "n1:7400", "-i", "0.5", "--", "app",
				"-x", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(str, o.command[0], "app"));
	cr_expect(o.interval == 0.5);
	cr_expect(eq(u64, o.buffer_limit, 64u << 20));
	expect_usage("--collector", &o, parse(&o, "agent", "--mpi", NULL));
	expect_usage("one of", &o, parse(&o, "agent", "--collector", "n:1", NULL));
	expect_usage("one of", &o, parse(&o, "agent", "--collector", "n:1", "-p", "1", "--", "x",
					 NULL));
	expect_usage("--buffer", &o, parse(&o, "agent", "--collector", "n:1", "--buffer", "1",
					   "--mpi", NULL));
	cr_assert(eq(int, parse(&o, "agent", "--collector", "n:1", "--mpi", "--buffer", "8M",
				NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(u64, o.buffer_limit, 8u << 20));
	cr_expect(o.munge == false && o.munge_socket == NULL);
	cr_assert(eq(int, parse(&o, "agent", "--collector", "n:1", "--mpi", "--munge", NULL),
		     EXIT_OK), "%s", errors);
	cr_expect(o.munge && o.munge_socket == NULL);
	cr_assert(eq(int, parse(&o, "collect", "--db", "x", "--munge-socket", "/tmp/m.sock",
				NULL), EXIT_OK), "%s", errors);
	cr_expect(o.munge, "--munge-socket implies --munge");
	cr_expect(eq(str, (char *)o.munge_socket, "/tmp/m.sock"));
	expect_usage("munged's socket", &o, parse(&o, "collect", "--db", "x", "--munge-socket",
						  "", NULL));

	cr_assert(eq(int, parse(&o, "report", "db.sqlite", "--run", "3", NULL), EXIT_OK), "%s",
		  errors);
	cr_expect(eq(str, (char *)o.inputs[0], "db.sqlite"));
	cr_expect(o.run_id == 3);
	cli_free(&o);
	expect_usage("report reads JSON reports of one job", &o, parse(&o, "report", NULL));
	expect_usage("--run wants", &o, parse(&o, "report", "d", "--run", "0", NULL));
	cr_assert(eq(int, parse(&o, "top", "--collector", "h:1", "-b", NULL), EXIT_OK), "%s",
		  errors);
	expect_usage("not both", &o, parse(&o, "top", "--collector", "h:1", "-p", "1", NULL));
	expect_usage("go with --collector", &o, parse(&o, "top", "--mpi", "--run", "2", NULL));
	expect_usage("go with --collector", &o, parse(&o, "top", "--mpi", "--munge", NULL));
}

/* --sample-bytes: a size (0: exact), exact by default but for the agent (512K). */
Test(cli, sample_bytes)
{
	struct options o;

	cr_assert(eq(int, parse(&o, "run", "--", "prog", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(u64, o.sample_bytes, 0));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "attach", "--sample-bytes", "64K", "-p", "1", NULL), EXIT_OK),
		  "%s", errors);
	cr_expect(eq(u64, o.sample_bytes, 64 << 10));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "agent", "--collector", "h:1", "--mpi", NULL), EXIT_OK),
		  "%s", errors);
	cr_expect(eq(u64, o.sample_bytes, 512 << 10));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "agent", "--sample-bytes", "0", "--collector", "h:1", "--mpi",
			       NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(u64, o.sample_bytes, 0));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "top", "--sample-bytes", "2M", "-p", "1", NULL), EXIT_OK),
		  "%s", errors);
	cr_expect(eq(u64, o.sample_bytes, 2 << 20));
	cli_free(&o);
	expect_usage("--sample-bytes", &o, parse(&o, "run", "--sample-bytes", "lots", "--", "p",
						 NULL));
}
