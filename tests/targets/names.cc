// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Runs libnames.so's callers of malloc (names_c.c, names_cpp.cc) and allocates on its own
 * with new, new[] and a std::vector, freeing everything. Prints, with write(2) so that stdio
 * allocates nothing, each library function's own malloc count ("TRUTH INDEX COUNT", see
 * names.h) and its own ("PROGRAM malloc N free N").
 *
 * Usage: names ROUNDS [balanced]
 *   balanced: skip calling names_tail_pub from here (its blocks are freed here, so under the
 *   entry rule its group and the program's would not end at 0).
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>
#include "names.h"

namespace
{
struct Thing {
	long a[6];
};

void say(const char *fmt, long a, long b)
{
	char line[128];
	int n = snprintf(line, sizeof(line), fmt, a, b);

	if (write(1, line, n) != n)
		exit(1);
}
} // namespace

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	bool balanced = argc > 2 && !strcmp(argv[2], "balanced");
	long own_malloc = 0, own_free = 0;

	names_run_c(rounds);
	names_run_cpp(rounds);
	for (int i = 0; !balanced && i < rounds; i++) {
		free(names_tail_pub(40 + i));
		own_free++;
	}
	for (int i = 0; i < rounds; i++) {
		int *x = new int[10 + i];
		Thing *t = new Thing();

		/* Seen escaping: GCC removes a new and delete pair it can see through. */
		__asm__ volatile("" ::"r"(x), "r"(t) : "memory");
		own_malloc += 2;
		{
			std::vector<long> v(100 + i);

			own_malloc++;
			v[i] = i;
		}
		own_free++;
		delete t;
		delete[] x;
		own_free += 2;
	}
	for (int i = 0; i < NAMES_NR; i++)
		say("TRUTH %ld %ld\n", i, names_truth[i]);
	say("PROGRAM malloc %ld free %ld\n", own_malloc, own_free);
	return 0;
}
