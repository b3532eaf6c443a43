/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef HEAPTAP_CPOOL_H
#define HEAPTAP_CPOOL_H

#include <stddef.h>
#include <stdint.h>

struct cpool {
	long blocks;
};

void *pool_alloc(struct cpool *pool, size_t n);
void pool_release(struct cpool *pool, void *p);
void *pool_resize(struct cpool *pool, void *p, size_t n);
int pool_memalign(void **out, size_t align, size_t n);
void *gbrk(intptr_t increment);

#endif
