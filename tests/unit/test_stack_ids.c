// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Stack ids in a real BPF hash map: read once, and all gone from the map once buried and deleted. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "stack_ids.h"

TestSuite(stack_ids);

#define NR_IDS 5000

Test(stack_ids, buried_ids_leave_the_map)
{
	struct stack_ids ids = {};
	struct dead_ids dead = {};
	struct ht_stack stack = {};
	__u64 key, next;
	size_t left = 0;

	ids.map_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_stacks", sizeof(__u64),
				    sizeof(struct ht_stack), NR_IDS + 1, NULL);
	if (ids.map_fd < 0 && (errno == EPERM || errno == EACCES))
		cr_skip_test("creating BPF maps needs root");
	cr_assert(ids.map_fd >= 0, "stack map: %s", strerror(errno));
	/* One more id than is read: deleting must leave exactly that one. */
	for (__u64 id = 1; id <= NR_IDS + 1; id++) {
		stack.pid = 42;
		stack.nr = 2;
		stack.frames[0] = id;
		stack.frames[1] = id * 2;
		cr_assert(eq(int, bpf_map_update_elem(ids.map_fd, &id, &stack, BPF_ANY), 0));
	}
	for (__u64 id = 1; id <= NR_IDS; id++) {
		__u32 nr;
		const __u64 *frames = stack_ids__frames(&ids, id, &nr);

		cr_assert(frames != NULL && nr == 2 && frames[1] == id * 2, "id %llu",
			  (unsigned long long)id);
	}
	dead.map_fd = ids.map_fd;
	stack_ids__bury(&ids, &dead);
	cr_expect(eq(sz, dead.nr, NR_IDS), "ids queued for deletion");
	dead_ids__delete(&dead);
	dead_ids__free(&dead);
	for (__u64 *prev = NULL; bpf_map_get_next_key(ids.map_fd, prev, &next) == 0;
	     prev = &key) {
		key = next;
		left++;
	}
	cr_expect(eq(sz, left, 1), "ids left in the map");
	cr_expect(eq(u64, key, NR_IDS + 1), "the id never read stays");
	close(ids.map_fd);
}

Test(stack_ids, an_id_learnt_from_its_event_needs_no_map_lookup)
{
	struct stack_ids ids = { .map_fd = -1 }; /* any lookup would fail */
	const __u64 frames[3] = { 0x1000, 0x2000, 0x3000 }, other[1] = { 0x9000 };
	const __u64 *got;
	__u32 nr = 0;

	cr_assert(eq(int, stack_ids__learn(&ids, 77, frames, 3), 0));
	/* A second event bringing id 77 (another thread's) changes nothing. */
	cr_assert(eq(int, stack_ids__learn(&ids, 77, other, 1), 0));
	got = stack_ids__frames(&ids, 77, &nr);
	cr_assert(got != NULL, "a learnt id is known without the map");
	cr_expect(eq(u32, nr, 3));
	cr_expect(eq(u64, got[2], 0x3000));
	cr_expect(stack_ids__frames(&ids, 78, &nr) == NULL, "an id never learnt nor mapped");
	stack_ids__clear(&ids);
}
