// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "procmaps.h"

TestSuite(procmaps);

static const char maps_text[] =
	"55d0c0a00000-55d0c0a02000 r--p 00000000 fe:01 1311  /usr/bin/my app\n"
	"55d0c0a02000-55d0c0a09000 r-xp 00002000 fe:01 1311  /usr/bin/my app\n"
	"55d0c1e6b000-55d0c1e8c000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f1a2c000000-7f1a2c021000 rw-p 00000000 00:00 0 \n"
	"7f1a2d228000-7f1a2d3bd000 r-xp 00028000 103:02 2885  /tmp/libold.so (deleted)\n";

Test(procmaps, parses_every_field)
{
	struct procmaps pm;
	const struct mapping *m;

	cr_assert(eq(int, procmaps__parse(maps_text, &pm), 0));
	cr_assert(eq(sz, pm.nr, 5));
	m = &pm.maps[1];
	cr_assert(eq(u64, m->start, 0x55d0c0a02000));
	cr_assert(eq(u64, m->end, 0x55d0c0a09000));
	cr_assert(eq(u64, m->offset, 0x2000));
	cr_assert(eq(u64, m->dev, makedev(0xfe, 0x01)));
	cr_assert(eq(u64, m->inode, 1311));
	cr_assert(m->readable && m->executable && !m->writable);
	cr_assert(eq(str, m->path, "/usr/bin/my app"));
	cr_assert(eq(str, pm.maps[2].path, "[heap]"));
	cr_assert(pm.maps[2].writable && !pm.maps[2].executable);
	cr_assert(eq(str, pm.maps[3].path, ""));
	cr_assert(eq(str, pm.maps[4].path, "/tmp/libold.so (deleted)"));
	cr_assert(eq(u64, pm.maps[4].dev, makedev(0x103, 0x02)));
	procmaps__clear(&pm);
	cr_assert(eq(sz, pm.nr, 0));
}

Test(procmaps, finds_by_address)
{
	struct procmaps pm;

	cr_assert(eq(int, procmaps__parse(maps_text, &pm), 0));
	cr_assert(eq(ptr, (void *)procmaps__find(&pm, 0x55d0c0a00000), &pm.maps[0]));
	cr_assert(eq(ptr, (void *)procmaps__find(&pm, 0x55d0c0a01fff), &pm.maps[0]));
	cr_assert(eq(ptr, (void *)procmaps__find(&pm, 0x55d0c0a02000), &pm.maps[1]));
	cr_assert(eq(ptr, (void *)procmaps__find(&pm, 0x55d0c0a09000), NULL)); /* a gap */
	cr_assert(eq(ptr, (void *)procmaps__find(&pm, 0x1000), NULL));
	cr_assert(eq(ptr, (void *)procmaps__find(&pm, 0x7f1a2d3bcfff), &pm.maps[4]));
	cr_assert(eq(ptr, (void *)procmaps__find(&pm, 0x7f1a2d3bd000), NULL));
	procmaps__clear(&pm);
}

Test(procmaps, rejects_garbage)
{
	struct procmaps pm;

	cr_assert(eq(int, procmaps__parse("not a maps line\n", &pm), -EINVAL));
}

Test(procmaps, reads_a_live_process)
{
	struct procmaps pm;
	const struct mapping *m;

	cr_assert(eq(int, procmaps__read(getpid(), &pm), 0));
	m = procmaps__find(&pm, (uint64_t)(uintptr_t)&procmaps__find);
	cr_assert(m != NULL);
	cr_assert(m->executable);
	procmaps__clear(&pm);
	cr_assert(eq(int, procmaps__read(4000000, &pm), -ESRCH));
}

/*
 * A file replaced on disk after it was mapped: its path names another inode now, yet the
 * path heaptap reads must open the mapped one.
 */
Test(procmaps, the_path_of_a_file_replaced_after_mapping)
{
	char dir[] = "/tmp/heaptap-maps-XXXXXX", path[256], read_path[4096];
	const struct mapping *m;
	struct procmaps pm;
	struct stat mapped, now;
	void *addr;
	int fd;

	cr_assert(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	cr_assert(fd >= 0 && write(fd, "old", 3) == 3 && fstat(fd, &mapped) == 0);
	addr = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	cr_assert(addr != MAP_FAILED);
	close(fd);
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT, 0644); /* the new file, a new inode, same name */
	cr_assert(fd >= 0 && write(fd, "new", 3) == 3);
	close(fd);

	cr_assert(eq(int, procmaps__read(getpid(), &pm), 0));
	m = procmaps__find(&pm, (uint64_t)(uintptr_t)addr);
	cr_assert(m != NULL);
	if (procmaps__file_path(getpid(), m, read_path, sizeof(read_path)) == -ESTALE) {
		cr_expect(geteuid() != 0, "as root, map_files/ reaches the mapped file");
	} else {
		cr_assert(eq(int, stat(read_path, &now), 0));
		cr_expect(eq(u64, now.st_ino, mapped.st_ino), "%s is not the mapped file", read_path);
	}
	procmaps__clear(&pm);
	munmap(addr, 4096);
	unlink(path);
	rmdir(dir);
}
