// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cksum.h"

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

uint64_t cksum_libm(uint64_t h)
{
	void *libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
	double (*cosine)(double);
	long long v;

	if (!libm || !(cosine = (double (*)(double))dlsym(libm, "cos")))
		return 0;
	v = (long long)(cosine(1.0) * 1e9);
	dlclose(libm);
	return fnv(h, (const unsigned char *)&v, sizeof(v));
}

/* zlib's crc32 of buf, through a dlopen of its own. 0 when zlib cannot be loaded. */
static uint64_t crc_by_zlib(const unsigned char *buf, size_t n)
{
	void *libz = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
	unsigned long (*crc32)(unsigned long, const unsigned char *, unsigned int);
	unsigned long crc;

	if (!libz)
		return 0;
	crc32 = (unsigned long (*)(unsigned long, const unsigned char *, unsigned int))dlsym(
		libz, "crc32");
	crc = crc32 ? crc32(0, buf, n) : 0;
	dlclose(libz);
	return crc;
}

uint64_t cksum_step(uint64_t h, int step, const char *dir)
{
	char path[PATH_MAX + 16];
	unsigned char *blocks[8];
	int nr = 1 + step % 7;
	uint64_t (*mix)(uint64_t, uint64_t);
	void *lib;

	for (int b = 0; b < nr; b++) {
		size_t size = 64 + (size_t)(step * 131 + b * 17) % 4000;

		blocks[b] = b % 2 ? calloc(1, size) : malloc(size);
		if (!blocks[b])
			return 0;
		for (size_t k = 0; k < size; k++)
			blocks[b][k] = (unsigned char)(step * 31 + b * 7 + k);
		if (b == 2) {
			unsigned char *bigger = realloc(blocks[b], size + 1000);

			if (!bigger)
				return 0;
			blocks[b] = bigger;
			memset(bigger + size, 0x5a, 1000);
			size += 1000;
		}
		h = fnv(h, blocks[b], size);
	}
	if (step % 3 == 0)
		h ^= crc_by_zlib(blocks[0], 64);
	for (int b = 0; b < nr; b++)
		free(blocks[b]);

	snprintf(path, sizeof(path), "%s/libmix.so", dir);
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib || !(mix = (uint64_t(*)(uint64_t, uint64_t))dlsym(lib, "mix"))) {
		fprintf(stderr, "cksum: %s\n", dlerror());
		return 0;
	}
	h = mix(h, (uint64_t)step);
	dlclose(lib);
	return h;
}

const char *cksum_self_dir(void)
{
	static char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	self[len > 0 ? len : 0] = '\0';
	return dirname(self);
}

uint64_t cksum_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void cksum_mark(int fd, const char *what)
{
	char line[128];
	int n;

	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%s %llu\n", what, (unsigned long long)cksum_now_ns());
	if (write(fd, line, n) != n)
		_exit(3);
}

void cksum_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}
