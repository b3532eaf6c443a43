// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Stack ids in a real BPF hash map: read once, and all gone from the map on release. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "stack_ids.h"

TestSuite(stack_ids);

#define NR_IDS 5000

Test(stack_ids, release_empties_the_map)
{
	struct stack_ids ids = {};
	struct ht_stack stack = {};
	__u64 key, next;
	size_t left = 0;

	ids.map_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "test_stacks", sizeof(__u64),
				    sizeof(struct ht_stack), NR_IDS + 1, NULL);
	if (ids.map_fd < 0 && (errno == EPERM || errno == EACCES))
		cr_skip_test("creating BPF maps needs root");
	cr_assert(ids.map_fd >= 0, "stack map: %s", strerror(errno));
	/* One more id than is read: release must leave exactly that one. */
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
	stack_ids__release(&ids);
	for (__u64 *prev = NULL; bpf_map_get_next_key(ids.map_fd, prev, &next) == 0;
	     prev = &key) {
		key = next;
		left++;
	}
	cr_expect(eq(sz, left, 1), "ids left in the map");
	cr_expect(eq(u64, key, NR_IDS + 1), "the id never read stays");
	close(ids.map_fd);
}
