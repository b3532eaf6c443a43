// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The stacks a node's processes share: files numbered once, answers kept as published
 * (copies, the first one kept), and a shared stack placed back at this process's own
 * addresses, read from /proc/self/maps here without heaptap's parser.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include "node_stacks.h"
#include "symbolizer.h"

TestSuite(node_stacks);

Test(node_stacks, a_file_keeps_its_number)
{
	struct node_stacks *n = node_stacks__new(false);
	uint64_t dev, inode;
	uint32_t a, b;

	cr_assert(n != NULL);
	a = node_stacks__file_id(n, 8, 100);
	b = node_stacks__file_id(n, 8, 101);
	cr_expect(a != 0 && b != 0 && a != b, "two files, two numbers: %u, %u", a, b);
	cr_expect(eq(u32, node_stacks__file_id(n, 8, 100), a), "the same file, the same number");
	cr_assert(node_stacks__file(n, b, &dev, &inode));
	cr_expect(eq(u64, dev, 8));
	cr_expect(eq(u64, inode, 101));
	cr_expect(not(node_stacks__file(n, 0, &dev, &inode)), "0 stands for no file");
	cr_expect(not(node_stacks__file(n, b + 1, &dev, &inode)), "a number not given");
	node_stacks__free(n);
}

Test(node_stacks, an_answer_is_a_copy_and_the_first_stays)
{
	struct node_stacks *n = node_stacks__new(true);
	char library[] = "/lib/libx.so", function[] = "x_alloc", caller[] = "main";
	struct stack_frame frames[2] = {
		{ .library = library, .function = function },
		{ .library = library, .function = caller, .line = 7 },
	};
	struct node_answer answer = {
		.key = { .stack_id = HT_STACK_ID_SHARED | 42, .func = HT_MALLOC, .exe_inode = 3 },
		.call = { .func = HT_MALLOC, .library = library, .function = function,
			  .complete = true },
	};
	struct node_answer_key other = answer.key;
	const struct node_answer *kept;
	struct stack_record publishers_own = {};

	cr_assert(n != NULL);
	answer.call.record = &publishers_own;
	cr_assert(eq(int, node_stacks__publish(n, &answer, frames, 2), 0));
	/* The publisher's buffers are its scratch: they change right after. */
	strcpy(function, "changed");
	frames[1].line = 99;
	answer.call.function = "second";
	cr_assert(eq(int, node_stacks__publish(n, &answer, frames, 2), 0));
	kept = node_stacks__find(n, &answer.key);
	cr_assert(kept != NULL);
	cr_expect(eq(str, (char *)kept->call.function, "x_alloc"), "the first answer, copied");
	cr_expect(kept->call.record == NULL, "the publisher's own record is not the node's");
	cr_assert(kept->model != NULL, "the stack it recorded");
	cr_expect(eq(sz, kept->model->nr, 2));
	cr_expect(eq(str, (char *)kept->model->frames[1].function, "main"));
	cr_expect(eq(int, kept->model->frames[1].line, 7), "recorded in detail, as asked");
	cr_expect(kept->call.complete);
	cr_expect(eq(sz, node_stacks__answers(n), 1));
	other.exe_inode = 4;
	cr_expect(node_stacks__find(n, &other) == NULL, "another program: no answer");
	other = answer.key;
	other.func = HT_FREE;
	cr_expect(node_stacks__find(n, &other) == NULL, "another entry point: no answer");
	node_stacks__free(n);
}

Test(node_stacks, forgotten_answers_leave_their_names)
{
	struct node_stacks *n = node_stacks__new(false);
	struct node_answer answer = {
		.key = { .stack_id = HT_STACK_ID_SHARED | 7, .func = HT_MALLOC },
		.call = { .library = "/lib/liby.so", .function = "y_alloc" },
	};
	const char *name;
	uint32_t file;

	cr_assert(n != NULL);
	file = node_stacks__file_id(n, 1, 2);
	cr_assert(eq(int, node_stacks__publish(n, &answer, NULL, 0), 0));
	name = node_stacks__find(n, &answer.key)->call.function;
	node_stacks__forget_answers(n);
	cr_expect(node_stacks__find(n, &answer.key) == NULL, "no answer once forgotten");
	cr_expect(eq(sz, node_stacks__answers(n), 0));
	cr_expect(eq(str, (char *)name, "y_alloc"), "a name taken before stays readable");
	cr_expect(eq(u32, node_stacks__file_id(n, 1, 2), file), "files keep their numbers");
	cr_assert(eq(int, node_stacks__publish(n, &answer, NULL, 0), 0));
	cr_expect(node_stacks__find(n, &answer.key) != NULL, "answers kept again after");
	node_stacks__free(n);
}

/*
 * Two stacks of one record (without --stacks, calls from two lines of one function): a
 * process makes the record once, and finds it by the model after.
 */
Test(node_stacks, stacks_of_one_record_share_its_model)
{
	struct node_stacks *n = node_stacks__new(false);
	struct stack_records mine = {};
	struct stack_frame line_10[] = { { .library = "/lib/liba.so", .function = "f", .line = 10,
					   .offset = 0x10 } },
			   line_20[] = { { .library = "/lib/liba.so", .function = "f", .line = 20,
					   .offset = 0x20 } };
	struct node_answer first = { .key = { .stack_id = HT_STACK_ID_SHARED | 1 },
				     .call = { .library = "/lib/liba.so", .function = "f",
					       .complete = true } },
			   second = first;
	const struct node_answer *a, *b;
	struct stack_record *ra, *rb;

	cr_assert(n != NULL);
	second.key.stack_id = HT_STACK_ID_SHARED | 2;
	cr_assert(eq(int, node_stacks__publish(n, &first, line_10, 1), 0));
	cr_assert(eq(int, node_stacks__publish(n, &second, line_20, 1), 0));
	a = node_stacks__find(n, &first.key);
	b = node_stacks__find(n, &second.key);
	cr_assert(a && b && a->model && b->model);
	cr_expect(a->model == b->model, "one record: the offsets and lines are not kept");
	ra = stack_records__intern_like(&mine, a->model);
	rb = stack_records__intern_like(&mine, b->model);
	cr_assert(ra != NULL);
	cr_expect(ra == rb);
	cr_expect(ra != a->model, "the process's own record, not the node's");
	cr_expect(eq(str, (char *)ra->frames[0].function, "f"));
	cr_expect(ra->frames[0].function != a->model->frames[0].function,
		  "its names in its own pool");
	stack_records__forget_models(&mine);
	node_stacks__forget_answers(n);
	cr_expect(eq(str, (char *)ra->frames[0].library, "/lib/liba.so"), "records outlive models");
	stack_records__clear(&mine);
	node_stacks__free(n);
}

/* The executable mapping of /proc/self/maps holding addr: its dev, inode and file offset. */
static void mapped_at(uintptr_t addr, uint64_t *dev, uint64_t *inode, uint64_t *offset)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long start, end, off, ino;
	unsigned int major, minor;
	char perms[8], line[4096];
	bool found = false;

	cr_assert(f != NULL);
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu", &start, &end, perms, &off, &major,
			   &minor, &ino) == 7 &&
		    addr >= start && addr < end && perms[2] == 'x') {
			*dev = makedev(major, minor);
			*inode = ino;
			*offset = addr - start + off;
			found = true;
		}
	}
	fclose(f);
	cr_assert(found, "no executable mapping holds %#lx", (unsigned long)addr);
}

static void __attribute__((noinline)) placed_function(void)
{
	asm volatile("");
}

Test(node_stacks, a_shared_stack_is_placed_at_this_process_addresses)
{
	struct node_stacks *n = node_stacks__new(false);
	struct symcache *cache = symcache__new();
	struct allocator alloc = {};
	uintptr_t here = (uintptr_t)placed_function, libc = (uintptr_t)strlen;
	uint64_t dev, inode, offset, libc_dev, libc_inode, libc_offset;
	struct ht_stack stack = { .pid = 0, .nr = 3 };
	struct symbolizer *s;
	uint32_t id, libc_id;

	cr_assert(n != NULL && cache != NULL);
	mapped_at(here, &dev, &inode, &offset);
	mapped_at(libc, &libc_dev, &libc_inode, &libc_offset);
	id = node_stacks__file_id(n, dev, inode);
	libc_id = node_stacks__file_id(n, libc_dev, libc_inode);
	s = symbolizer__new(getpid(), cache, &alloc, ATTRIBUTE_ENTRY, NULL, n);
	cr_assert(s != NULL, "symbolizer: %s", strerror(errno));

	stack.frames[0] = ht_frame_key(libc_id, libc_offset);
	stack.frames[1] = ht_frame_key(id, offset);
	stack.frames[2] = ht_frame_key(id, offset + 1);
	cr_assert(eq(int, symbolizer__place(s, &stack), 0));
	cr_expect(eq(u32, stack.pid, (uint32_t)getpid()), "placed: the process's own now");
	cr_expect(eq(u64, stack.frames[0], libc));
	cr_expect(eq(u64, stack.frames[1], here));
	cr_expect(eq(u64, stack.frames[2], here + 1));
	cr_expect(eq(int, symbolizer__place(s, &stack), 0), "a process's own stack stays");
	cr_expect(eq(u64, stack.frames[1], here));

	stack = (struct ht_stack){ .pid = 0, .nr = 2 };
	stack.frames[0] = ht_frame_key(id, offset);
	stack.frames[1] = ht_frame_key(node_stacks__file_id(n, dev, inode + 1000000), 16);
	cr_expect(eq(int, symbolizer__place(s, &stack), -ENOENT), "a file not mapped here");
	symbolizer__free(s);
	symcache__free(cache);
	node_stacks__free(n);
}
