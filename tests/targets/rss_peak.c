// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A short program whose resident set peaks in the middle: it maps PEAK_MIB MiB, touches
 * every page, unmaps them, and writes what the kernel says of itself just before it exits
 * (VmHWM and VmRSS of /proc/self/status, in kB) to the truth file, then exits at once. It
 * lives well under a second, shorter than heaptap's RSS sampling interval.
 *
 * rss_peak TRUTH_FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PEAK_MIB 16

static long status_kb(const char *status, const char *field)
{
	const char *p = strstr(status, field);

	return p ? strtol(p + strlen(field), NULL, 10) : -1;
}

int main(int argc, char **argv)
{
	size_t size = PEAK_MIB << 20;
	char status[4096], *map, *block = malloc(64);
	FILE *f;
	size_t n;

	if (argc != 2 || !block)
		return 2;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return 1;
	for (size_t i = 0; i < size; i += 4096)
		map[i] = 1;
	munmap(map, size);
	free(block);
	/* Everything the truth needs is allocated before the kernel is asked. */
	f = fopen(argv[1], "w");
	if (!f)
		return 1;
	{
		FILE *s = fopen("/proc/self/status", "r");

		if (!s)
			return 1;
		n = fread(status, 1, sizeof(status) - 1, s);
		fclose(s);
	}
	status[n] = '\0';
	fprintf(f, "%ld %ld\n", status_kb(status, "VmHWM:"), status_kb(status, "VmRSS:"));
	return fclose(f) ? 1 : 0;
}
