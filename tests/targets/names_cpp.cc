// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The C++ half of libnames.so (names_c.c): methods, a template and a new, whose symbols
 * are mangled (_ZN2ns4Pool4grabEm). grab and make_array end in a jump to malloc.
 */
#include <cstdlib>
#include "names.h"

namespace ns
{
struct Node {
	long v[4];
	Node *next;
};

struct Pool {
	void *grab(unsigned long n);
	Node *make_node();
};

__attribute__((noinline)) void *Pool::grab(unsigned long n)
{
	names_truth[NAMES_POOL_GRAB]++;
	return malloc(n);
}

/* Its new counts as the malloc it makes, charged here under the caller rule. */
__attribute__((noinline)) Node *Pool::make_node()
{
	names_truth[NAMES_POOL_MAKE_NODE]++;
	return new Node();
}

template <typename T> __attribute__((noinline)) T *make_array(unsigned long n)
{
	names_truth[NAMES_MAKE_ARRAY]++;
	return static_cast<T *>(malloc(n * sizeof(T)));
}
} // namespace ns

/* Frees all it allocates (delete through operator delete, which jumps to free). */
extern "C" void names_run_cpp(int rounds)
{
	ns::Pool pool;
	for (int i = 0; i < rounds; i++) {
		void *a = pool.grab(24 + i);
		ns::Node *n = pool.make_node();
		int *arr = ns::make_array<int>(10 + i);
		free(a);
		delete n;
		free(arr);
	}
}
