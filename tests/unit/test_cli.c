// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "cli.h"
#include "cli_suggest.h"
#include "cmd_agent.h"
#include "cmd_attach.h"
#include "cmd_collect.h"
#include "cmd_compare.h"
#include "cmd_report.h"
#include "cmd_run.h"
#include "cmd_sites.h"
#include "cmd_top.h"
#include "command_list.h"

TestSuite(cli);

/* The options cli_parse found, as the subcommand's struct. */
static const struct run_options *run_of(const struct cli_parsed *p)
{
	return p->opts;
}

static const struct attach_options *attach_of(const struct cli_parsed *p)
{
	return p->opts;
}

static const struct top_options *top_of(const struct cli_parsed *p)
{
	return p->opts;
}

static const struct sites_options *sites_of(const struct cli_parsed *p)
{
	return p->opts;
}

static const struct report_options *report_of(const struct cli_parsed *p)
{
	return p->opts;
}

static const struct compare_options *compare_of(const struct cli_parsed *p)
{
	return p->opts;
}

static const struct agent_options *agent_of(const struct cli_parsed *p)
{
	return p->opts;
}

static const struct collect_options *collect_of(const struct cli_parsed *p)
{
	return p->opts;
}

static char errors[1024];

/* cli_parse("heaptap", args..., NULL), its standard error kept in errors[]. */
static int parse(struct cli_parsed *o, ...)
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
	status = cli_parse(argc, argv, heaptap_commands, heaptap_nr_commands, o);
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
static void expect_usage(const char *mentions, struct cli_parsed *o, int status)
{
	cr_expect(eq(int, status, EXIT_USAGE), "status for: %s", errors);
	cr_expect(strncmp(errors, "heaptap: ", 9) == 0, "'%s'", errors);
	cr_expect(strchr(errors, '\n') == errors + strlen(errors) - 1, "one line: '%s'", errors);
	cr_expect(strstr(errors, mentions) != NULL, "'%s' not in '%s'", mentions, errors);
	cli_free(o);
}

Test(cli, run_options_and_the_command_with_its_own)
{
	struct cli_parsed o;

	cr_assert(eq(int, parse(&o, "run", "-a", "caller", "--json", "j", "-o", "t", "--stacks",
			       "s", "--follow", "--unwind", "fp", "--", "prog", "-d", "x", NULL),
		     EXIT_OK), "%s", errors);
	cr_expect(eq(ptr, (void *)o.command, (void *)&run_command));
	cr_expect(eq(int, run_of(&o)->trace.rule, ATTRIBUTE_CALLER));
	cr_expect(eq(str, (char *)run_of(&o)->out.json_path, "j"));
	cr_expect(eq(str, (char *)run_of(&o)->out.text_path, "t"));
	cr_expect(eq(str, (char *)run_of(&o)->out.stacks_path, "s"));
	cr_expect(run_of(&o)->trace.follow && run_of(&o)->trace.frame_pointers &&
		  !run_of(&o)->trace.mpi_only && !o.verbose);
	cr_expect(eq(str, run_of(&o)->trace.command[0], "prog"));
	cr_expect(eq(str, run_of(&o)->trace.command[1], "-d"));
	cr_expect(eq(str, run_of(&o)->trace.command[2], "x"));
	cr_expect(eq(ptr, run_of(&o)->trace.command[3], NULL));
	cli_free(&o);

	/* Without "--", heaptap's options end at the command too. */
	cr_assert(eq(int, parse(&o, "run", "--mpi", "prog", "-v", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(str, run_of(&o)->trace.command[0], "prog"));
	cr_expect(eq(str, run_of(&o)->trace.command[1], "-v"));
	cr_expect(run_of(&o)->trace.mpi_only && run_of(&o)->trace.follow && !o.verbose);
	cli_free(&o);
}

Test(cli, global_options_before_or_after_the_subcommand)
{
	struct cli_parsed o;

	cr_assert(eq(int, parse(&o, "-v", "run", "--", "true", NULL), EXIT_OK), "%s", errors);
	cr_expect(o.verbose);
	cr_expect(eq(str, run_of(&o)->trace.command[0], "true"));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "--verbose", "attach", "-p", "1", NULL), EXIT_OK), "%s",
		  errors);
	cr_expect(o.verbose && o.command == &attach_command);
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "top", "-p", "1", "-v", NULL), EXIT_OK), "%s", errors);
	cr_expect(o.verbose && o.command == &top_command);
	cli_free(&o);
}

Test(cli, an_option_of_another_subcommand_is_refused)
{
	struct cli_parsed o;

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
	struct cli_parsed o;

	expect_usage("-p needs an argument", &o, parse(&o, "attach", "-p", NULL));
	expect_usage("--json needs an argument", &o,
		     parse(&o, "attach", "-p", "1", "--json", NULL));
	expect_usage("--json takes no argument", &o, parse(&o, "top", "-p", "1", "--json=x", NULL));
	/* top's --json is a flag, run's names a file. */
	cr_assert(eq(int, parse(&o, "top", "--json", "-p", "1", NULL), EXIT_OK), "%s", errors);
	cr_expect(top_of(&o)->json_lines && top_of(&o)->batch && !top_of(&o)->out.json_path);
	cli_free(&o);
	/* Long options as getopt reads them: abbreviated, with "=". */
	cr_assert(eq(int, parse(&o, "attach", "--pid=7", "--dur", "1.5", NULL), EXIT_OK), "%s",
		  errors);
	cr_expect(eq(int, attach_of(&o)->trace.pids[0], 7));
	cr_expect(attach_of(&o)->duration == 1.5);
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
	struct cli_parsed o;

	cr_assert(eq(int, parse(&o, "attach", "-p", "3,1,2", "-p", "4194304", "-p", "1", NULL),
		     EXIT_OK), "%s", errors);
	cr_assert(eq(sz, attach_of(&o)->trace.nr_pids, 4), "a PID named twice is kept once");
	cr_expect(eq(int, attach_of(&o)->trace.pids[0], 3));
	cr_expect(eq(int, attach_of(&o)->trace.pids[1], 1));
	cr_expect(eq(int, attach_of(&o)->trace.pids[2], 2));
	cr_expect(eq(int, attach_of(&o)->trace.pids[3], 4194304));
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
	struct cli_parsed o;
	char self[32], list[64];

	snprintf(self, sizeof(self), "%d", getpid());
	snprintf(list, sizeof(list), "1,%d", getpid());
	expect_usage("heaptap itself", &o, parse(&o, "attach", "-p", self, NULL));
	expect_usage(self, &o, parse(&o, "top", "-p", list, NULL));
}

Test(cli, each_subcommand_checks_the_whole)
{
	struct cli_parsed o;

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
	cr_expect(eq(str, (char *)sites_of(&o)->file, "/lib/libc.so.6"));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "top", "--mpi", NULL), EXIT_OK), "%s", errors);
	cr_expect(top_of(&o)->trace.mpi_only && top_of(&o)->trace.interval == 1.0 &&
		  top_of(&o)->trace.rule == ATTRIBUTE_ENTRY);
	cli_free(&o);
}

Test(cli, tree_report_and_compare_options)
{
	struct cli_parsed o;

	expect_usage("add --tree", &o, parse(&o, "run", "--depth", "2", "--", "x", NULL));
	expect_usage("add --tree", &o, parse(&o, "attach", "-p", "1", "--under", "f", NULL));
	expect_usage("--depth wants a number of levels", &o,
		     parse(&o, "run", "--tree", "--depth", "-1", "--", "x", NULL));
	expect_usage("report reads JSON reports of one job", &o, parse(&o, "report", NULL));
	expect_usage("--tree, --full, --pprof, --folded and --list read one file", &o,
		     parse(&o, "report", "a.json", "b.json", "--tree", NULL));
	cr_assert(eq(int, parse(&o, "report", "a.json", "b.json", "-n", "5", NULL), EXIT_OK),
		  "%s", errors);
	cr_expect(eq(int, report_of(&o)->nr_inputs, 2));
	cr_expect(eq(long, report_of(&o)->count, 5));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "report", "a.json", "--rank", "2", NULL), EXIT_OK), "%s",
		  errors);
	cr_expect(eq(int, report_of(&o)->rank, 2));
	cli_free(&o);
	expect_usage("two or more reports", &o, parse(&o, "compare", "a.json", NULL));
	expect_usage("--by must be world_size", &o,
		     parse(&o, "compare", "a.json", "b.json", "--by", "rank", NULL));
	cr_assert(eq(int, parse(&o, "report", "a.json", "b.json", "--html", "x.html", NULL),
		     EXIT_OK), "%s", errors);
	cr_expect(eq(str, (char *)report_of(&o)->out.html_path, "x.html"));
	cli_free(&o);
	expect_usage("--html writes the job's page", &o,
		     parse(&o, "report", "a.json", "--html", "x.html", "--tree", NULL));
	expect_usage("--html writes the job's page", &o,
		     parse(&o, "report", "a.json", "--html", "x.html", "--rank", "1", NULL));
	cr_assert(eq(int, parse(&o, "run", "--tree", "--depth", "3", "--under", "MPI_Init", "--",
				"x", NULL),
		     EXIT_OK), "%s", errors);
	cr_expect(run_of(&o)->out.tree && run_of(&o)->out.depth == 3 &&
		  !strcmp(run_of(&o)->out.under, "MPI_Init"));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "compare", "a.json", "--under", "f", "b.json", NULL),
		     EXIT_OK), "%s", errors);
	cr_expect(eq(sz, compare_of(&o)->nr_inputs, 2));
	cr_expect(compare_of(&o)->out.depth == 3, "compare's default depth");
	cr_expect(eq(str, (char *)compare_of(&o)->inputs[1], "b.json"));
	cli_free(&o);
}

Test(cli, budgets_default_and_options_change_them)
{
	struct cli_parsed o;

	cr_assert(eq(int, parse(&o, "run", "--", "prog", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(u64, run_of(&o)->trace.table_budget.per_file, TABLE_BUDGET_FILE));
	cr_expect(eq(u64, run_of(&o)->trace.table_budget.total, TABLE_BUDGET_TOTAL));
	cr_expect(eq(u64, run_of(&o)->trace.symbol_budget.per_file, SYMBOL_BUDGET_FILE));
	cr_expect(eq(u64, run_of(&o)->trace.symbol_budget.total, SYMBOL_BUDGET_TOTAL));
	cli_free(&o);

	cr_assert(eq(int, parse(&o, "attach", "-p", "1", "--table-budget", "1M,4M",
			       "--symbol-budget", ",2G", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(u64, attach_of(&o)->trace.table_budget.per_file, 1 << 20));
	cr_expect(eq(u64, attach_of(&o)->trace.table_budget.total, 4 << 20));
	cr_expect(eq(u64, attach_of(&o)->trace.symbol_budget.per_file, SYMBOL_BUDGET_FILE));
	cr_expect(eq(u64, attach_of(&o)->trace.symbol_budget.total, 2ULL << 30));
	cli_free(&o);

	cr_assert(eq(int, parse(&o, "top", "-p", "1", "--table-budget=512K", NULL), EXIT_OK),
		  "%s", errors);
	cr_expect(eq(u64, top_of(&o)->trace.table_budget.per_file, 512 << 10));
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
	struct cli_parsed o;

	cr_assert(eq(int, parse(&o, "collect", "--db", "x.sqlite", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(str, (char *)collect_of(&o)->listen, "127.0.0.1:7400"), "loopback by default");
	cr_expect(collect_of(&o)->client_timeout == 30 && collect_of(&o)->lost_after == 30);
	cli_free(&o);
	expect_usage("--db", &o, parse(&o, "collect", NULL));
	expect_usage("HOST:PORT", &o, parse(&o, "collect", "--db", "x", "--listen", "7400", NULL));
	expect_usage("HOST:PORT", &o, parse(&o, "collect", "--db", "x", "--listen", "h:p", NULL));
	cr_assert(eq(int, parse(&o, "collect", "--db", "x", "--listen", "[::1]:0", NULL), EXIT_OK),
		  "%s", errors);
	cli_free(&o);

	cr_assert(eq(int, parse(&o, "agent", "--collector", "n1:7400", "-i", "0.5", "--", "app",
				"-x", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(str, agent_of(&o)->trace.command[0], "app"));
	cr_expect(agent_of(&o)->trace.interval == 0.5);
	cr_expect(eq(u64, agent_of(&o)->buffer_limit, 64u << 20));
	cli_free(&o);
	expect_usage("--collector", &o, parse(&o, "agent", "--mpi", NULL));
	expect_usage("one of", &o, parse(&o, "agent", "--collector", "n:1", NULL));
	expect_usage("one of", &o, parse(&o, "agent", "--collector", "n:1", "-p", "1", "--", "x",
					 NULL));
	expect_usage("--buffer", &o, parse(&o, "agent", "--collector", "n:1", "--buffer", "1",
					   "--mpi", NULL));
	cr_assert(eq(int, parse(&o, "agent", "--collector", "n:1", "--mpi", "--buffer", "8M",
				NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(u64, agent_of(&o)->buffer_limit, 8u << 20));
	cr_expect(agent_of(&o)->cred.munge == false && agent_of(&o)->cred.munge_socket == NULL);
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "agent", "--collector", "n:1", "--mpi", "--munge", NULL),
		     EXIT_OK), "%s", errors);
	cr_expect(agent_of(&o)->cred.munge && agent_of(&o)->cred.munge_socket == NULL);
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "collect", "--db", "x", "--munge-socket", "/tmp/m.sock",
				NULL), EXIT_OK), "%s", errors);
	cr_expect(collect_of(&o)->cred.munge, "--munge-socket implies --munge");
	cr_expect(eq(str, (char *)collect_of(&o)->cred.munge_socket, "/tmp/m.sock"));
	cli_free(&o);
	expect_usage("munged's socket", &o, parse(&o, "collect", "--db", "x", "--munge-socket",
						  "", NULL));

	cr_assert(eq(int, parse(&o, "report", "db.sqlite", "--run", "3", NULL), EXIT_OK), "%s",
		  errors);
	cr_expect(eq(str, (char *)report_of(&o)->inputs[0], "db.sqlite"));
	cr_expect(report_of(&o)->run_id == 3);
	cli_free(&o);
	expect_usage("report reads JSON reports of one job", &o, parse(&o, "report", NULL));
	expect_usage("--run wants", &o, parse(&o, "report", "d", "--run", "0", NULL));
	cr_assert(eq(int, parse(&o, "top", "--collector", "h:1", "-b", NULL), EXIT_OK), "%s",
		  errors);
	cli_free(&o);
	expect_usage("not both", &o, parse(&o, "top", "--collector", "h:1", "-p", "1", NULL));
	expect_usage("go with --collector", &o, parse(&o, "top", "--mpi", "--run", "2", NULL));
	expect_usage("go with --collector", &o, parse(&o, "top", "--mpi", "--munge", NULL));
}

/*
 * An option that takes a file, given what looks like an option (run --json -- true): one
 * line and status 2, in every subcommand and both forms, never a file named "--".
 */
Test(cli, a_file_argument_that_starts_with_a_dash_is_refused)
{
	struct cli_parsed o;
	int checked = 0;

	for (size_t i = 0; i < heaptap_nr_commands; i++) {
		const struct cli_command *sub = heaptap_commands[i];

		for (const struct argp_option *opt = sub->options; opt->name || opt->doc; opt++) {
			char word[64], want[256], joined[80];

			if (!opt->name || !opt->arg || (!strstr(opt->arg, "FILE") &&
							 !strstr(opt->arg, "PATH")))
				continue;
			snprintf(word, sizeof(word), "--%s", opt->name);
			snprintf(want, sizeof(want), "%s takes a %s, not '--'", word, opt->arg);
			expect_usage(want, &o, parse(&o, sub->name, word, "--", "true", NULL));
			snprintf(joined, sizeof(joined), "%s=-x", word);
			snprintf(want, sizeof(want), "%s takes a %s, not '-x'", word, opt->arg);
			expect_usage(want, &o, parse(&o, sub->name, joined, "true", NULL));
			if (opt->key > 0 && opt->key < 0x80) {
				snprintf(word, sizeof(word), "-%c", opt->key);
				snprintf(want, sizeof(want), "%s takes a %s, not '-'", word, opt->arg);
				expect_usage(want, &o, parse(&o, sub->name, word, "-", "true", NULL));
			}
			checked++;
		}
	}
	/* -o, --json, --stacks, --pprof, --folded, --html, --key, --db... across subcommands. */
	cr_expect(checked >= 15, "only %d file options found", checked);
	/* A file that does start with '-', written as a path. */
	cr_assert(eq(int, parse(&o, "run", "--json", "./--", "-o", "./-x", "--", "true", NULL),
		     EXIT_OK), "%s", errors);
	cr_expect(eq(str, (char *)run_of(&o)->out.json_path, "./--"));
	cli_free(&o);
}

Test(cli, edit_distance)
{
	cr_expect(eq(sz, cli_edit_distance("attach", "attach"), 0));
	cr_expect(eq(sz, cli_edit_distance("atach", "attach"), 1));	 /* a letter dropped */
	cr_expect(eq(sz, cli_edit_distance("attahc", "attach"), 1));	 /* two swapped */
	cr_expect(eq(sz, cli_edit_distance("attack", "attach"), 1));	 /* one changed */
	cr_expect(eq(sz, cli_edit_distance("atttach", "attach"), 1));	 /* one added */
	cr_expect(eq(sz, cli_edit_distance("", "run"), 3));
	cr_expect(eq(sz, cli_edit_distance("report", "compare"), 5));
}

/* A mistyped subcommand or option: "did you mean", on the one line of the error. */
Test(cli, did_you_mean)
{
	struct cli_parsed o;

	expect_usage("unknown subcommand 'atach' (did you mean 'attach'?)", &o,
		     parse(&o, "atach", "-p", "1", NULL));
	expect_usage("(did you mean 'report'?)", &o, parse(&o, "repotr", "x.json", NULL));
	expect_usage("(did you mean 'store-migrate'?)", &o,
		     parse(&o, "store-migrat", "a", "b", NULL));
	/* Nothing close: the list of subcommands, no guess. */
	expect_usage("unknown subcommand 'frobnicate': run, attach", &o,
		     parse(&o, "frobnicate", NULL));
	cr_expect(strstr(errors, "did you mean") == NULL, "%s", errors);
	/* A three-letter word only one edit away: "tap" is not "top" or "run". */
	expect_usage("unknown subcommand 'xyz': run", &o, parse(&o, "xyz", NULL));
	expect_usage("run has no option --jsn (did you mean --json?)", &o,
		     parse(&o, "run", "--jsn", "x", "--", "true", NULL));
	expect_usage("attach has no option --duraton (did you mean --duration?)", &o,
		     parse(&o, "attach", "--duraton", "1", "-p", "1", NULL));
	expect_usage("unknown option --verbsoe (did you mean --verbose?)", &o,
		     parse(&o, "--verbsoe", "run", "--", "true", NULL));
	/* An option of another subcommand says so, as before. */
	expect_usage("run has no option --duration (an option of", &o,
		     parse(&o, "run", "--duration", "1", "--", "true", NULL));
}

/* top -b prints rows; --full whole reports (a batch of its own), never with --json. */
Test(cli, top_full)
{
	struct cli_parsed o;

	cr_assert(eq(int, parse(&o, "top", "--full", "-p", "1", NULL), EXIT_OK), "%s", errors);
	cr_expect(top_of(&o)->out.full && top_of(&o)->batch && !top_of(&o)->json_lines);
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "top", "-b", "-p", "1", NULL), EXIT_OK), "%s", errors);
	cr_expect(top_of(&o)->batch && !top_of(&o)->out.full);
	cli_free(&o);
	expect_usage("one of them", &o, parse(&o, "top", "--full", "--json", "-p", "1", NULL));
	expect_usage("heaptap report DB --full", &o,
		     parse(&o, "top", "--collector", "h:1", "--full", NULL));
}

/*
 * Each row of a subcommand's table is parsed by its parser (or a group's it hands keys
 * to): a key nobody handles would pass the checks and reach argp as unknown.
 */
Test(cli, every_option_in_a_table_has_a_parser)
{
	int checked = 0;

	for (size_t i = 0; i < heaptap_nr_commands; i++) {
		const struct cli_command *sub = heaptap_commands[i];

		for (const struct argp_option *opt = sub->options; opt->name || opt->doc; opt++) {
			struct cli_state c = { .sub = sub, .opts = calloc(1, sub->opts_size) };
			char value[] = "1";
			error_t err;
			int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

			cr_assert(c.opts != NULL);
			/* A bad value is said on standard error: not wanted here. */
			fflush(stderr);
			dup2(devnull, 2);
			sub->parse(&c, ARGP_KEY_INIT, NULL);
			err = sub->parse(&c, opt->key, opt->arg ? value : NULL);
			fflush(stderr);
			dup2(saved, 2);
			close(saved);
			close(devnull);
			cr_expect(err != ARGP_ERR_UNKNOWN, "heaptap %s --%s: no parser takes it",
				  sub->name, opt->name);
			if (sub->free)
				sub->free(c.opts);
			free(c.opts);
			checked++;
		}
	}
	cr_expect(checked >= 100, "only %d options found", checked);
}

/* --sample-bytes: a size (0: exact), exact by default but for the agent (512K). */
Test(cli, sample_bytes)
{
	struct cli_parsed o;

	cr_assert(eq(int, parse(&o, "run", "--", "prog", NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(u64, run_of(&o)->trace.sample_bytes, 0));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "attach", "--sample-bytes", "64K", "-p", "1", NULL), EXIT_OK),
		  "%s", errors);
	cr_expect(eq(u64, attach_of(&o)->trace.sample_bytes, 64 << 10));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "agent", "--collector", "h:1", "--mpi", NULL), EXIT_OK),
		  "%s", errors);
	cr_expect(eq(u64, agent_of(&o)->trace.sample_bytes, 512 << 10));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "agent", "--sample-bytes", "0", "--collector", "h:1", "--mpi",
			       NULL), EXIT_OK), "%s", errors);
	cr_expect(eq(u64, agent_of(&o)->trace.sample_bytes, 0));
	cli_free(&o);
	cr_assert(eq(int, parse(&o, "top", "--sample-bytes", "2M", "-p", "1", NULL), EXIT_OK),
		  "%s", errors);
	cr_expect(eq(u64, top_of(&o)->trace.sample_bytes, 2 << 20));
	cli_free(&o);
	expect_usage("--sample-bytes", &o, parse(&o, "run", "--sample-bytes", "lots", "--", "p",
						 NULL));
}
