// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "heaptap_types.h"

const char *const ht_func_names[HT_NR_FUNCS] = {
	[HT_MALLOC] = "malloc",
	[HT_CALLOC] = "calloc",
	[HT_REALLOC] = "realloc",
	[HT_REALLOCARRAY] = "reallocarray",
	[HT_FREE] = "free",
	[HT_MEMALIGN] = "memalign",
	[HT_POSIX_MEMALIGN] = "posix_memalign",
	[HT_ALIGNED_ALLOC] = "aligned_alloc",
	[HT_VALLOC] = "valloc",
	[HT_PVALLOC] = "pvalloc",
};
