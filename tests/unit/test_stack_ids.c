// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Stack ids in a real BPF hash map: frames read from it, and a program's ids gone once buried and deleted. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "stack_ids.h"

TestSuite(stack_ids);

#define NR_IDS 5000

static int new_map(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_stacks", sizeof(__u64),
				sizeof(struct ht_stored_stack), NR_IDS + 1, NULL);

	if (fd < 0 && (errno == EPERM || errno == EACCES))
		cr_skip_test("creating BPF maps needs root");
	cr_assert(fd >= 0, "stack map: %s", strerror(errno));
	return fd;
}

Test(stack_ids, buried_ids_leave_the_map)
{
	struct stack_ids ids = {};
	struct dead_ids dead = {};
	struct ht_stored_stack stack = {};
	struct ht_stack read;
	__u64 key, next;
	size_t left = 0;

	ids.map_fd = dead.map_fd = new_map();
	/* One more id than the program owns: deleting must leave exactly that one. */
	for (__u64 id = 1; id <= NR_IDS + 1; id++) {
		stack.pid = 42;
		stack.nr = 2;
		stack.frames[0] = id;
		stack.frames[1] = id * 2;
		cr_assert(eq(int, bpf_map_update_elem(ids.map_fd, &id, &stack, BPF_ANY), 0));
		if (id <= NR_IDS)
			cr_assert(eq(int, stack_ids__own(&ids, id), 0));
	}
	cr_assert(eq(int, stack_ids__frames(&ids, 77, &read), 0));
	cr_expect(eq(u32, read.nr, 2));
	cr_expect(eq(u64, read.frames[1], 154), "the frames stored under id 77");
	stack_ids__bury(&ids, &dead);
	cr_expect(eq(sz, ids.nr, 0), "the program owns nothing once buried");
	cr_expect(eq(sz, dead.nr, NR_IDS), "ids queued for deletion");
	dead_ids__delete(&dead);
	dead_ids__free(&dead);
	for (__u64 *prev = NULL; bpf_map_get_next_key(ids.map_fd, prev, &next) == 0;
	     prev = &key) {
		key = next;
		left++;
	}
	cr_expect(eq(sz, left, 1), "ids left in the map");
	cr_expect(eq(u64, key, NR_IDS + 1), "the id never owned stays");
	cr_expect(eq(int, stack_ids__frames(&ids, 77, &read), -ENOENT), "a deleted id");
	close(ids.map_fd);
}

Test(stack_ids, a_shared_id_is_nobodys_to_delete)
{
	struct stack_ids ids = {};
	struct dead_ids dead = {};
	struct ht_stored_stack stack = { .pid = 0, .nr = 1, .frames = { ht_frame_key(1, 64) } };
	__u64 shared = HT_STACK_ID_SHARED | 5, own = 6;
	struct ht_stack read;

	ids.map_fd = dead.map_fd = new_map();
	cr_assert(eq(int, bpf_map_update_elem(ids.map_fd, &shared, &stack, BPF_ANY), 0));
	stack.pid = 42;
	cr_assert(eq(int, bpf_map_update_elem(ids.map_fd, &own, &stack, BPF_ANY), 0));
	cr_assert(eq(int, stack_ids__own(&ids, shared), 0));
	cr_assert(eq(int, stack_ids__own(&ids, own), 0));
	stack_ids__bury(&ids, &dead);
	cr_expect(eq(sz, dead_ids__delete(&dead), 1), "only the process's own id is deleted");
	dead_ids__free(&dead);
	cr_expect(eq(int, stack_ids__frames(&ids, own, &read), -ENOENT));
	cr_assert(eq(int, stack_ids__frames(&ids, shared, &read), 0), "other processes meet it still");
	cr_expect(eq(u32, read.pid, 0), "kept by its files (pid 0)");
	cr_expect(eq(u64, read.frames[0], ht_frame_key(1, 64)));
	close(ids.map_fd);
}

Test(stack_ids, the_nodes_ids_go_together_and_only_they)
{
	struct ht_stored_stack stack = { .pid = 0, .nr = 1, .frames = { ht_frame_key(2, 8) } };
	int fd = new_map();
	struct ht_stack read;
	struct stack_ids ids = { .map_fd = fd };
	__u64 key;

	/* 300 shared ids, whoever gave them, and 200 of processes' own. */
	for (__u64 i = 1; i <= 500; i++) {
		key = i <= 300 ? HT_STACK_ID_SHARED | i : i;
		stack.pid = i <= 300 ? 0 : 42;
		cr_assert(eq(int, bpf_map_update_elem(fd, &key, &stack, BPF_ANY), 0));
	}
	cr_expect(eq(sz, stack_ids__delete_shared(fd), 300));
	key = HT_STACK_ID_SHARED | 7;
	cr_expect(eq(int, stack_ids__frames(&ids, key, &read), -ENOENT), "a shared id stayed");
	cr_expect(eq(int, stack_ids__frames(&ids, 301, &read), 0), "a process's own id went");
	cr_expect(eq(u32, read.pid, 42));
	cr_expect(eq(sz, stack_ids__delete_shared(fd), 0), "none left to delete");
	close(fd);
}
