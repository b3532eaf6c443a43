// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Each stored process's user (processes.uid and user_name) is the one it ran as, even for
 * a process that lived a few milliseconds and was gone long before the agent's batch, and
 * for one the agent attached to.
 */
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "cluster.h"
#include "driver.h"
#include "procs.h"

TestSuite(cluster_user, .timeout = 120);

#define CHILDREN 4
#define NOBODY 65534

/* The SQL literal of uid's user name here, or NULL when the name is not known. */
static void user_name_of(uid_t uid, char *out, size_t size)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(out, size, "'%s'", pw->pw_name);
	else
		snprintf(out, size, "NULL");
}

/*
 * Under agent --follow, a launcher (run as this test's user) starts short-lived children
 * that drop to nobody before they exec: each image is stored with the uid it ran as.
 */
Test(cluster_user, short_lived_processes_keep_their_user)
{
	char spawner[512], gtchild[512], db[256], err[256], sql[1536];
	char own_name[256], nobody_name[256], child_command[600];
	struct collector_proc c;
	int status;

	require_bpf();
	target_path("spawner", spawner, sizeof(spawner));
	target_path("gtchild", gtchild, sizeof(gtchild));
	user_name_of(getuid(), own_name, sizeof(own_name));
	user_name_of(NOBODY, nobody_name, sizeof(nobody_name));
	snprintf(child_command, sizeof(child_command), "%s --blocks 1", gtchild);
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, NULL);
	{
		char count[8];
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint,
				 "--follow", "--", spawner, "--count", count, "--", "/usr/bin/setpriv",
				 "--reuid=65534", "--regid=65534", "--clear-groups", gtchild,
				 "--blocks", "1", NULL };

		snprintf(count, sizeof(count), "%d", CHILDREN);
		status = wait_status(spawn(argv, NULL, scratch_file("agent.err", err, sizeof(err))),
				     60);
	}
	cr_assert(eq(int, status, 0), "agent: %s", slurp(err));
	cr_assert(eq(int, collector_stop(&c, SIGTERM), 0), "%s", slurp(c.err));

	/* Every child's program, stored once, as nobody: its uid and that uid's name. */
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM processes WHERE command = '%s'",
		 child_command);
	cr_expect(eq(i64, db_integer(db, sql), CHILDREN), "%s", sql);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM processes WHERE command = '%s' AND "
		 "uid = %d AND user_name IS %s", child_command, NOBODY, nobody_name);
	cr_expect(eq(i64, db_integer(db, sql), CHILDREN), "%s", sql);
	/* The launcher, and setpriv before it dropped its uid, ran as this test's user. */
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM processes WHERE substr(command, 1, %zu) "
		 "= '%s' AND uid = %u AND user_name IS %s", strlen(spawner), spawner,
		 (unsigned)getuid(), own_name);
	cr_expect(eq(i64, db_integer(db, sql), 1), "%s", sql);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM processes WHERE command <> '%s' AND "
		 "(uid IS NOT %u OR user_name IS NOT %s)", child_command, (unsigned)getuid(),
		 own_name);
	cr_expect(eq(i64, db_integer(db, sql), 0), "%s", sql);
	cr_expect(eq(i64, db_integer(db, "SELECT count(*) FROM processes WHERE uid IS NULL"), 0));
}

/* A process attached to by pid (agent -p), running as nobody, exits before the last batch. */
Test(cluster_user, an_attached_process_keeps_its_user)
{
	char gtchild[512], db[256], err[256], sql[512], nobody_name[256], pid_arg[16];
	char *target_argv[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
				"--clear-groups", (char *)target_path("gtchild", gtchild,
								       sizeof(gtchild)),
				"--wait", "--blocks", "1", NULL };
	struct collector_proc c;
	pid_t target, agent;

	require_bpf();
	user_name_of(NOBODY, nobody_name, sizeof(nobody_name));
	collector_start(&c, scratch_file("run.sqlite", db, sizeof(db)), 0, NULL);
	target = spawn(target_argv, NULL, NULL);
	for (double deadline = now_s() + 30; !proc_catches_signal(target, SIGUSR1);) {
		cr_assert(now_s() < deadline, "gtchild --wait never got ready");
		sleep_ms(5);
	}
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)target);
	{
		char *argv[] = { (char *)heaptap_path(), "agent", "--sample-bytes", "0",
				 "--collector", c.endpoint, "-p",
				 pid_arg, NULL };

		agent = spawn(argv, NULL, scratch_file("agent.err", err, sizeof(err)));
	}
	expect_attached(agent, target, err);
	kill(target, SIGUSR1);
	cr_expect(eq(int, wait_status(target, 30), 0));
	cr_assert(eq(int, wait_status(agent, 30), 0), "agent: %s", slurp(err));
	cr_assert(eq(int, collector_stop(&c, SIGTERM), 0), "%s", slurp(c.err));
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM processes WHERE pid = %d AND uid = %d "
		 "AND user_name IS %s", (int)target, NOBODY, nobody_name);
	cr_expect(eq(i64, db_integer(db, sql), 1), "%s", sql);
	cr_expect(eq(i64, db_integer(db, "SELECT count(*) FROM processes"), 1));
}
