// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "procmaps.h"
#include "warmup.h"

struct warmup {
	pthread_t thread;
	struct symcache *cache;
};

/* Everything naming a frame in obj reads, read now. */
static void read_all(struct symcache *cache, const struct mapping *m)
{
	struct object_file *obj = symcache__get_mapped(cache, getpid(), m);

	if (!obj)
		return;
	object_file__starts(obj);
	object_file__calls(obj);
	object_file__dwarf(obj);
}

static void *warm(void *arg)
{
	struct warmup *w = arg;
	/* Code of the C library, and of the loader (the hook heaptap probes lies there). */
	const uintptr_t code[] = { (uintptr_t)malloc,
				   (uintptr_t)dlsym(RTLD_DEFAULT, "_dl_debug_state") };
	struct procmaps maps = {};

	if (procmaps__read(getpid(), &maps))
		return NULL;
	for (size_t i = 0; i < sizeof(code) / sizeof(code[0]); i++) {
		const struct mapping *m = code[i] ? procmaps__find(&maps, code[i]) : NULL;

		if (m && m->executable && m->path[0] == '/')
			read_all(w->cache, m);
	}
	procmaps__clear(&maps);
	return NULL;
}

struct warmup *warmup__start(struct symcache *cache)
{
	struct warmup *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->cache = cache;
	if (pthread_create(&w->thread, NULL, warm, w)) {
		free(w);
		return NULL;
	}
	return w;
}

void warmup__join(struct warmup *w)
{
	if (!w)
		return;
	pthread_join(w->thread, NULL);
	free(w);
}
