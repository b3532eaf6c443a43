// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "procfs.h"

TestSuite(procfs);

Test(procfs, the_real_uid_of_a_status_file)
{
	/* The real uid is the first of four: a setuid program's effective one is not it. */
	cr_expect(eq(u32, procfs_status_uid("Name:\tsu\nUmask:\t0022\nState:\tS (sleeping)\n"
					    "Uid:\t1000\t0\t0\t0\nGid:\t100\t100\t100\t100\n"),
		     1000));
	cr_expect(eq(u32, procfs_status_uid("Uid:\t65534\t65534\t65534\t65534\n"), 65534));
	/* A "Uid:" inside another line's value (a program named so) is not the line. */
	cr_expect(eq(u32, procfs_status_uid("Name:\tUid: 7\nUid:\t42\t42\t42\t42\n"), 42));
	cr_expect(eq(u32, procfs_status_uid("Name:\tx\nGid:\t0\t0\t0\t0\n"), (uid_t)-1));
	cr_expect(eq(u32, procfs_status_uid("Uid:\t\n"), (uid_t)-1));
	cr_expect(eq(u32, procfs_status_uid("Uid:\t99999999999\t0\t0\t0\n"), (uid_t)-1));
	cr_expect(eq(u32, procfs_status_uid(""), (uid_t)-1));
}

Test(procfs, the_uid_of_a_live_process)
{
	cr_expect(eq(u32, procfs_uid(getpid()), getuid()));
	cr_expect(eq(u32, procfs_uid(4000000), (uid_t)-1));
}

/* A program's name as the kernel keeps it: the one prctl() set, without the newline. */
Test(procfs, the_name_of_a_live_process)
{
	char name[64] = "";

	cr_assert(eq(int, prctl(PR_SET_NAME, "comm-of-test"), 0));
	cr_assert(procfs_comm(getpid(), name, sizeof(name)));
	cr_expect(eq(str, name, "comm-of-test"));
	cr_expect(procfs_comm(4000000, name, sizeof(name)) == false, "no such process");
}
