// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unwind tables in real BPF maps: two processes mapping the same files share one table
 * per file, and each process's mappings point at those rows, sorted, as the BPF search
 * needs.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "unwind_maps.h"

TestSuite(unwind_maps);

#define ROWS (1 << 18)

struct maps_fixture {
	int rows_fd, processes_fd;
	struct unwind_maps *u;
};

static void create_maps(struct maps_fixture *f)
{
	f->rows_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "test_rows", sizeof(__u32),
				    sizeof(struct ht_unwind_row), ROWS, NULL);
	if (f->rows_fd < 0 && (errno == EPERM || errno == EACCES))
		cr_skip_test("creating BPF maps needs root");
	cr_assert(f->rows_fd >= 0, "row map: %s", strerror(errno));
	f->processes_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_procs", sizeof(__u32),
					 sizeof(struct ht_process_mappings), 16, NULL);
	cr_assert(f->processes_fd >= 0, "process map: %s", strerror(errno));
	f->u = unwind_maps__new(f->rows_fd, ROWS, f->processes_fd, NULL);
	cr_assert(f->u != NULL);
}

static void give_tables(struct maps_fixture *f, pid_t pid, struct ht_process_mappings *out)
{
	struct procmaps maps = {};
	__u32 key = pid;

	cr_assert(eq(int, procmaps__read(pid, &maps), 0));
	cr_assert(eq(int, unwind_maps__update(f->u, pid, &maps), 0));
	procmaps__clear(&maps);
	cr_assert(eq(int, bpf_map_lookup_elem(f->processes_fd, &key, out), 0));
}

/* The mapping of libc's code, found by its file's rows. */
static const struct ht_mapping *libc_code(const struct ht_process_mappings *pm,
					  const struct unwind_file *files, size_t nr_files)
{
	for (__u32 i = 0; i < pm->nr; i++) {
		for (size_t j = 0; j < nr_files; j++) {
			if (strstr(files[j].path, "/libc.so.6") && files[j].nr_rows &&
			    pm->maps[i].nr_rows == files[j].nr_rows)
				return &pm->maps[i];
		}
	}
	return NULL;
}

Test(unwind_maps, two_processes_share_one_table_per_file)
{
	static struct ht_process_mappings mine, childs;
	const struct ht_mapping *a, *b;
	const struct unwind_file *files;
	struct maps_fixture f;
	size_t nr_files, nr_after;
	pid_t child;

	create_maps(&f);
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	give_tables(&f, getpid(), &mine);
	nr_files = unwind_maps__files(f.u, &files);
	give_tables(&f, child, &childs);
	nr_after = unwind_maps__files(f.u, &files);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	cr_expect(eq(sz, nr_after, nr_files), "the child maps the same files: no new tables");
	cr_assert(mine.nr > 0 && mine.nr == childs.nr);
	for (__u32 i = 1; i < mine.nr; i++)
		cr_expect(mine.maps[i - 1].end <= mine.maps[i].start, "mappings sorted, apart");
	a = libc_code(&mine, files, nr_files);
	b = libc_code(&childs, files, nr_files);
	cr_assert(a != NULL && b != NULL, "libc's code has rows in both");
	cr_expect(eq(u32, a->first_row, b->first_row), "one table for both processes");
	cr_expect(eq(u64, a->start, b->start), "a forked child maps libc where its parent does");

	/* The rows in the map are libc's, sorted by file offset. */
	for (__u32 r = a->first_row + 1; r < a->first_row + a->nr_rows; r++) {
		struct ht_unwind_row prev, row;
		__u32 k = r - 1;

		cr_assert(eq(int, bpf_map_lookup_elem(f.rows_fd, &k, &prev), 0));
		cr_assert(eq(int, bpf_map_lookup_elem(f.rows_fd, &r, &row), 0));
		cr_assert(prev.pc < row.pc, "row %u not after row %u", r, k);
	}
	unwind_maps__forget(f.u, child);
	{
		__u32 key = child;

		cr_expect(bpf_map_lookup_elem(f.processes_fd, &key, &childs) != 0,
			  "a forgotten process has no mappings");
	}
	unwind_maps__free(f.u);
	close(f.rows_fd);
	close(f.processes_fd);
}
