// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "held_maps.h"
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

/* What the kernel answers mapping by mapping is what its maps text says, code only. */
Test(procmaps, reads_the_code_mappings_the_text_lists)
{
	struct procmaps read, parsed;
	size_t code = 0;
	char *text = NULL;
	size_t cap = 0;
	FILE *f;
	/* A deleted file's mapping, to compare the " (deleted)" path too. */
	char lib[] = "/tmp/heaptap-maps-XXXXXX";
	int fd = mkstemp(lib);
	void *gone;

	cr_assert(fd >= 0);
	cr_assert(eq(int, ftruncate(fd, 4096), 0));
	gone = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	cr_assert(gone != MAP_FAILED);
	close(fd);
	unlink(lib);

	f = fopen("/proc/self/maps", "r");
	cr_assert(f != NULL);
	cr_assert(getdelim(&text, &cap, '\0', f) > 0);
	fclose(f);
	cr_assert(eq(int, procmaps__parse(text, &parsed), 0));
	free(text);
	cr_assert(eq(int, procmaps__read(getpid(), &read), 0));
	for (size_t i = 0; i < parsed.nr; i++) {
		const struct mapping *want = &parsed.maps[i], *got;

		/* The vsyscall page is the kernel's, in no process's list of mappings. */
		if (!want->executable || !strcmp(want->path, "[vsyscall]"))
			continue;
		cr_assert(code < read.nr, "mapping %s missing", want->path);
		got = &read.maps[code++];
		cr_expect(eq(u64, got->start, want->start));
		cr_expect(eq(u64, got->end, want->end));
		cr_expect(eq(u64, got->offset, want->offset), "%s", want->path);
		cr_expect(eq(u64, got->dev, want->dev), "%s", want->path);
		cr_expect(eq(u64, got->inode, want->inode), "%s", want->path);
		cr_expect(eq(str, got->path, want->path));
		cr_expect(got->executable);
	}
	cr_expect(eq(sz, read.nr, code), "only code mappings are read");
	cr_expect(code >= 3, "the test program, libc and the deleted file are code");
	procmaps__clear(&parsed);
	procmaps__clear(&read);
	munmap(gone, 4096);
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
	/* Code, as every mapping heaptap reads. */
	addr = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
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

/*
 * Code unmapped since is kept, code that newer code overlaps is not: even when mappings
 * kept before it (lower addresses) already follow the fresh ones in the list.
 */
Test(procmaps, keeps_unmapped_code_that_nothing_replaced)
{
	struct mapping now[] = {
		{ .start = 0x900, .end = 0xa00, .executable = true, .path = strdup("/lib/new") },
	};
	struct mapping before[] = {
		{ .start = 0x100, .end = 0x200, .executable = true, .path = "/lib/a" },
		{ .start = 0x300, .end = 0x400, .executable = true, .path = "/lib/c" },
		{ .start = 0x950, .end = 0x960, .executable = true, .path = "/lib/replaced" },
	};
	struct procmaps fresh = { .nr = 1 }, old = { before, 3 };

	fresh.maps = malloc(sizeof(now));
	memcpy(fresh.maps, now, sizeof(now));
	cr_assert(eq(int, procmaps__keep_unmapped_code(&fresh, &old), 0));
	cr_assert(eq(sz, fresh.nr, 3), "a and c kept, the replaced one not");
	cr_expect(eq(str, fresh.maps[0].path, "/lib/a"));
	cr_expect(eq(str, fresh.maps[1].path, "/lib/c"));
	cr_expect(eq(str, fresh.maps[2].path, "/lib/new"));
	procmaps__clear(&fresh);
}

/* Maps of one line at start: which stop's maps came back is told by their address. */
static void push_maps_at(struct held_maps **queue, uint64_t since, uint64_t start)
{
	char text[128];
	struct procmaps pm;

	snprintf(text, sizeof(text), "%llx-%llx r-xp 00000000 fe:01 7  /lib/x.so\n",
		 (unsigned long long)start, (unsigned long long)start + 0x1000);
	cr_assert(eq(int, procmaps__parse(text, &pm), 0));
	cr_assert(eq(int, held_maps__push(queue, since, &pm), 0));
	cr_assert(eq(sz, pm.nr, 0)); /* taken, not copied */
}

Test(procmaps, held_maps_come_back_for_their_own_stop)
{
	struct held_maps *queue = NULL;
	struct procmaps out = {};

	push_maps_at(&queue, 100, 0x1000);
	push_maps_at(&queue, 200, 0x2000);
	push_maps_at(&queue, 300, 0x3000);
	/* A stop handled only in the stream's order has none. */
	cr_assert(not(held_maps__take(&queue, 50, &out)));
	cr_assert(held_maps__take(&queue, 100, &out));
	cr_assert(eq(u64, out.maps[0].start, 0x1000));
	procmaps__clear(&out);
	/* 200's ordered event was lost: its maps go with the next stop's. */
	cr_assert(held_maps__take(&queue, 300, &out));
	cr_assert(eq(u64, out.maps[0].start, 0x3000));
	procmaps__clear(&out);
	cr_assert(not(held_maps__take(&queue, 200, &out)));
	cr_assert(eq(ptr, queue, NULL));
	push_maps_at(&queue, 400, 0x4000);
	held_maps__clear(&queue);
	cr_assert(eq(ptr, queue, NULL));
}
